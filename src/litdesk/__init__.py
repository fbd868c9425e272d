"""litdesk — an open-source workbench for literature reviews."""

from litdesk._errors import (
    ConfigError,
    ExternalError,
    InputError,
    IntegrityError,
    LitdeskError,
    NotFoundError,
    RefusedError,
)

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "ExternalError",
    "InputError",
    "IntegrityError",
    "LitdeskError",
    "NotFoundError",
    "RefusedError",
    "Settings",
    "__version__",
    "get_settings",
]


def __getattr__(name: str) -> object:
    """``Settings`` / ``get_settings`` on first use (pydantic is not imported at start-up,
    so ``litdesk --help`` stays fast)."""
    if name in ("Settings", "get_settings"):
        from litdesk import _settings

        return getattr(_settings, name)
    raise AttributeError(f"module 'litdesk' has no attribute {name!r}")
