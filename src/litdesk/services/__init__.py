"""Services compose core and adapters: search, library, workspace, synthesis, dedup.
Faces (CLI, web) call services only. A face opens one :class:`Runtime` for its lifetime
(:func:`open_runtime`) and calls its async methods; workflows without provider I/O are in
the subpackages."""

from ._runtime import LOCAL_OWNER, AdoptionLookupFailed, Runtime, open_runtime, provider_transport

__all__ = ["LOCAL_OWNER", "AdoptionLookupFailed", "Runtime", "open_runtime", "provider_transport"]
