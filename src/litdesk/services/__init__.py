"""Services compose core and adapters: search, library, workspace, synthesis, dedup.
Faces (CLI, web) call services only. A face opens one :class:`Runtime` for its lifetime
(:func:`open_runtime`) and calls its async methods; workflows without provider I/O are in
the subpackages.

The runtime's names are loaded on first use, so importing one subpackage (say
``litdesk.services.imports``) does not load the HTTP transport and every provider service.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._runtime import (
        LOCAL_OWNER,
        AdoptionLookupFailed,
        Runtime,
        open_runtime,
        provider_transport,
    )

__all__ = ["LOCAL_OWNER", "AdoptionLookupFailed", "Runtime", "open_runtime", "provider_transport"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import _runtime

        return getattr(_runtime, name)
    raise AttributeError(f"module 'litdesk.services' has no attribute {name!r}")
