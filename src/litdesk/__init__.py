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
from litdesk._settings import Settings, get_settings

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
