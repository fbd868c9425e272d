"""The one exception tree of litdesk.

Every error litdesk raises on purpose derives from :class:`LitdeskError`. Each
area adds its own subclasses beside its code, deriving from one of the
categories below, so a face (CLI, web) can translate a whole category at once:

* :class:`InputError` — the user's input (a file, a query, an argument) is wrong;
  the message says what and where. CLI exit status 2.
* :class:`RefusedError` — litdesk refuses on purpose (licence gate, security rule,
  allowance exhausted, unsupported by a provider). CLI exit status 3.
* :class:`NotFoundError` — a named thing does not exist. CLI exit status 4.
* :class:`ExternalError` — something outside failed (network, provider, model,
  database). CLI exit status 5.
* :class:`ConfigError` — settings are wrong or missing. CLI exit status 6.
* :class:`IntegrityError` — stored or recovered data failed validation on read.
  CLI exit status 7.

Errors carry a short ``code`` (machine-readable, stable) and a human message.
They never carry credentials: messages are built from sanitised values only.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConfigError",
    "ExternalError",
    "InputError",
    "IntegrityError",
    "LitdeskError",
    "NotFoundError",
    "RefusedError",
]


class LitdeskError(Exception):
    """Root of every error litdesk raises on purpose."""

    exit_code: int = 1
    default_code: str = "error"
    #: what a person should do next, when the family's general advice does not fit this
    #: error (``""``: the message already says it); ``None``: the family's advice
    hint: str | None = None

    def __init__(self, message: str, *, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.details: dict[str, Any] = details

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (for ``--json`` output and the web face)."""
        out: dict[str, Any] = {
            "error": type(self).__name__,
            "code": self.code,
            "message": self.message,
        }
        if self.details:
            out["details"] = {k: v for k, v in self.details.items() if _jsonable(v)}
        return out


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, list, dict, tuple))


class InputError(LitdeskError):
    """The user's input is wrong: a malformed file, an invalid query, a bad argument."""

    exit_code = 2
    default_code = "input"


class RefusedError(LitdeskError):
    """litdesk refuses on purpose: a licence, a security rule, an allowance, a provider limit."""

    exit_code = 3
    default_code = "refused"


class NotFoundError(LitdeskError):
    """A named paper, study, run, file or record does not exist."""

    exit_code = 4
    default_code = "not_found"


class ExternalError(LitdeskError):
    """Something outside litdesk failed: network, provider, model server, database."""

    exit_code = 5
    default_code = "external"


class ConfigError(LitdeskError):
    """Settings are wrong or missing (a required key, an invalid URL)."""

    exit_code = 6
    default_code = "config"


class IntegrityError(LitdeskError):
    """Stored or recovered data failed validation on read."""

    exit_code = 7
    default_code = "integrity"
