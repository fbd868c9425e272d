"""Services compose core and adapters: search, library, workspace, synthesis, dedup.
Faces (CLI, web) call services only. A face opens one :class:`~litdesk.services.app.App`
for its lifetime (:func:`open_app`) and calls its parts; workflows without provider I/O
are in the subpackages.

The app's names are loaded on first use, so importing one subpackage (say
``litdesk.services.imports``) does not load the HTTP transport and every provider service.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import App, open_app, open_app_sync
    from .providers import LOCAL_OWNER, AdoptionLookupFailed, Providers

__all__ = [
    "LOCAL_OWNER",
    "AdoptionLookupFailed",
    "App",
    "Providers",
    "open_app",
    "open_app_sync",
]

_WHERE = {
    "App": "app",
    "open_app": "app",
    "open_app_sync": "app",
    "LOCAL_OWNER": "providers",
    "AdoptionLookupFailed": "providers",
    "Providers": "providers",
}


def __getattr__(name: str) -> object:
    if name in _WHERE:
        import importlib

        module = importlib.import_module(f"{__name__}.{_WHERE[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'litdesk.services' has no attribute {name!r}")
