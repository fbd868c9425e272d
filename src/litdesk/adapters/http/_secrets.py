"""Credentials per provider (declared with each provider), injected only at send time,
and redaction of their values."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Final

from pydantic import SecretStr

from litdesk._settings import Settings
from litdesk.adapters.providers import ADAPTERS

__all__ = [
    "CREDENTIAL_NAMES",
    "Credentials",
    "RedactingFilter",
    "Redactor",
    "credentials_for",
    "has_key",
]

#: Parameter / header names that look like credentials. A compiled request carrying one
#: is refused: credentials are added by the transport, never by a compiler.
CREDENTIAL_NAMES: Final = frozenset(
    {
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "key",
        "token",
        "access_token",
        "authorization",
        "crossref-plus-api-token",
        "password",
        "secret",
    }
)

REDACTED: Final = "[REDACTED]"


@dataclass(frozen=True, slots=True)
class Credentials:
    """What to add to one provider's request: query parameters and headers."""

    params: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:  # never print the values
        names = [n for n, _ in self.params] + [n for n, _ in self.headers]
        return f"Credentials({', '.join(names) or 'none'})"


def _value(secret: SecretStr | None) -> str | None:
    if secret is None:
        return None
    value = secret.get_secret_value().strip()
    return value or None  # an empty variable is no key


def credentials_for(provider: str, settings: Settings) -> Credentials:
    """The credentials for ``provider`` only: each key goes to its own host and no other
    (as the provider's declaration says: which setting, which parameter or header)."""
    adapter = ADAPTERS.get(provider)
    declared = adapter.credential if adapter is not None else None
    if declared is None:
        return Credentials()
    secret = getattr(settings, declared.setting, None)
    key = _value(secret) if isinstance(secret, SecretStr) else None
    if key is None:
        return Credentials()
    value = declared.template.format(key=key)
    if declared.param is not None:
        return Credentials(params=((declared.param, value),), secrets=(key,))
    if declared.header is not None:
        return Credentials(headers=((declared.header, value),), secrets=(key,))
    return Credentials()  # pragma: no cover - a declaration names a parameter or a header


def has_key(provider: str, settings: Settings) -> bool:
    """Whether ``provider`` has a (non-empty) credential configured."""
    return bool(credentials_for(provider, settings).secrets)


class Redactor:
    """Replaces every known secret value (and its URL-encoded form) in text."""

    def __init__(self, secrets: list[str] | tuple[str, ...] = ()) -> None:
        from urllib.parse import quote, quote_plus

        forms: set[str] = set()
        for value in secrets:
            if value:
                forms.update({value, quote(value, safe=""), quote_plus(value)})
        # longest first so an encoded form is not half-replaced by a shorter one
        self._forms = sorted((f for f in forms if len(f) >= 1), key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def redact(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def redact_bytes(self, data: bytes) -> tuple[bytes, bool]:
        found = False
        for form in self._forms:
            raw = form.encode("utf-8")
            if raw in data:
                data = data.replace(raw, REDACTED.encode("ascii"))
                found = True
        return data, found

    def contains(self, text: str) -> bool:
        return any(form in text for form in self._forms)


class RedactingFilter(logging.Filter):
    """A logging filter that removes secret values from records of httpx/httpcore, whose
    request log lines include the full URL (and so any key sent as a query parameter)."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.redactor:
            return True
        message = record.getMessage()
        if self.redactor.contains(message):
            record.msg = self.redactor.redact(message)
            record.args = None
        return True
