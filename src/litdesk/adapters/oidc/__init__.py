"""The OpenID Connect relying party's edge: the provider's discovery document, token
endpoint and keys over guarded HTTP, and ID-token validation (authlib and joserfc)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._client import (
        MAX_BODY_BYTES,
        Discovery,
        OidcClient,
        OidcConfigError,
        ProviderFailed,
        TokenAnswer,
        check_endpoint,
        parse_allowed_hosts,
    )
    from ._idtoken import (
        ASYMMETRIC_ALGS,
        LEEWAY_SECONDS,
        Identity,
        IdTokenInvalid,
        validate_id_token,
    )

__all__ = [
    "ASYMMETRIC_ALGS",
    "LEEWAY_SECONDS",
    "MAX_BODY_BYTES",
    "Discovery",
    "IdTokenInvalid",
    "Identity",
    "OidcClient",
    "OidcConfigError",
    "ProviderFailed",
    "TokenAnswer",
    "check_endpoint",
    "parse_allowed_hosts",
    "validate_id_token",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
