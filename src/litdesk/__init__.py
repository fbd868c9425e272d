"""litdesk — an open-source workbench for literature reviews."""

from litdesk._clock import SYSTEM_CLOCK, Clock, ManualClock, SystemClock
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
    "SYSTEM_CLOCK",
    "Clock",
    "ConfigError",
    "ExternalError",
    "InputError",
    "IntegrityError",
    "LitdeskError",
    "ManualClock",
    "NotFoundError",
    "RefusedError",
    "Settings",
    "SystemClock",
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
