"""Consent bound to content: a token is the hash of the exact text to be sent, the host it
goes to and the model that answers. Any change to one of the three makes an earlier
consent stale."""

from __future__ import annotations

import hashlib
import ipaddress
import json
from dataclasses import dataclass
from typing import Final

from ._errors import ConsentRequired

__all__ = ["CONSENT_VERSION", "ConsentNotice", "check_consent", "consent_token", "is_loopback"]

CONSENT_VERSION: Final = "litdesk-consent-1"


def consent_token(text: str, host: str, model: str) -> str:
    """``sha256:<hex>`` over (version, host, model, text); the same inputs, the same token."""
    payload = json.dumps([CONSENT_VERSION, host, model, text], ensure_ascii=False)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (IPv4 127/8, IPv6 ::1), with or without a
    port or IPv6 brackets."""
    name = host.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else name[1:]
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    if name in {"localhost", "localhost."}:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class ConsentNotice:
    """What will be sent, to which host and model, and the token that consents to it."""

    text: str
    host: str
    backend: str
    model: str

    @property
    def token(self) -> str:
        return consent_token(self.text, self.host, self.model)

    @property
    def local(self) -> bool:
        return is_loopback(self.host)

    @property
    def characters(self) -> int:
        return len(self.text)

    def headline(self) -> str:
        where = "a local model on this machine" if self.local else "a remote model service"
        return (
            f"{self.characters:,} characters will be sent to {self.host} ({where}), "
            f"backend {self.backend}, model {self.model}."
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "host": self.host,
            "backend": self.backend,
            "model": self.model,
            "local": self.local,
            "characters": self.characters,
            "headline": self.headline(),
            "text": self.text,
            "token": self.token,
        }


def check_consent(given: str | None, notice: ConsentNotice) -> None:
    """Refuse unless ``given`` is the token of exactly this notice."""
    if not given:
        raise ConsentRequired(
            "consent is required before anything is sent: " + notice.headline(),
            code="consent_required",
        )
    if given != notice.token:
        raise ConsentRequired(
            "the consent was given for other text, host or model (the text may have changed); "
            "review what will be sent and consent again",
            code="consent_stale",
        )
