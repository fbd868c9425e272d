"""The one HTTP transport seam to the bibliographic providers, the cassette recorder and
player, daily allowances, pacing and the provider evidence cache."""

from ._cassette import CASSETTE_FORMAT, Cassette, CassetteRecorder, exchange_key
from ._errors import CassetteMiss, TransportFailed, TransportRefused
from ._evidence import EvidenceCache
from ._exchange import KEPT_HEADERS, Exchange, sanitised_url
from ._meter import Meter
from ._pacing import DEFAULT_INTERVALS, Pacer, crossref_interval
from ._secrets import CREDENTIAL_NAMES, Credentials, Redactor, credentials_for
from ._status import MAX_RETRY_AFTER, lane_status_for, parse_retry_after
from ._store_meter import SEMANTIC_GAP_SECONDS, StoreMeter
from ._transport import (
    MAX_URL_BYTES,
    OPENALEX_KEY_MESSAGE,
    ErrorMessageFn,
    ParseFn,
    ProviderTransport,
    check_request,
)

__all__ = [
    "CASSETTE_FORMAT",
    "CREDENTIAL_NAMES",
    "DEFAULT_INTERVALS",
    "KEPT_HEADERS",
    "MAX_RETRY_AFTER",
    "MAX_URL_BYTES",
    "OPENALEX_KEY_MESSAGE",
    "Cassette",
    "CassetteMiss",
    "CassetteRecorder",
    "Credentials",
    "Meter",
    "SEMANTIC_GAP_SECONDS",
    "StoreMeter",
    "ErrorMessageFn",
    "EvidenceCache",
    "Exchange",
    "Pacer",
    "ParseFn",
    "ProviderTransport",
    "Redactor",
    "TransportFailed",
    "TransportRefused",
    "check_request",
    "crossref_interval",
    "credentials_for",
    "exchange_key",
    "lane_status_for",
    "parse_retry_after",
    "sanitised_url",
]
