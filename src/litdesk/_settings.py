"""The one settings object of litdesk.

Settings come from the environment (``LITDESK_*``) and an optional ``.env`` file;
secrets only from the environment. Build them with :func:`get_settings` (or
``Settings()`` in tests) — never at import time. Every field has a description;
``litdesk config --json`` lists them without secret values.

Areas add their fields in their own marked block below; keep one flat object so a
user sets ``LITDESK_OPENALEX_API_KEY`` rather than nested names.
"""

from __future__ import annotations

import re
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import platformdirs
from pydantic import Field, PrivateAttr, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as _SourceError

from litdesk._errors import ConfigError

if TYPE_CHECKING:
    from litdesk.core.library import RetrievalParams

__all__ = ["Settings", "SettingsError", "get_settings"]

ENV_PREFIX = "LITDESK_"
#: Settings fields of the library ranker's parameters (``retrieval_<parameter>``).
RETRIEVAL_PREFIX = "retrieval_"


class SettingsError(ConfigError):
    """A setting (environment variable or ``.env`` entry) has a value of the wrong form."""

    default_code = "invalid_setting"


def _settings_error(exc: ValidationError) -> SettingsError:
    """Name each wrong variable and the form it expects; never echo the value (it may be
    a secret pasted into the wrong variable)."""
    problems: list[str] = []
    variables: list[str] = []
    for err in exc.errors(include_url=False, include_input=False):
        field = str(err["loc"][0]) if err["loc"] else "?"
        name = ENV_PREFIX + field.upper()
        variables.append(name)
        expected = str(err.get("msg", "invalid")).removeprefix("Input should be ")
        info = Settings.model_fields.get(field)
        hint = f" ({info.description})" if info is not None and info.description else ""
        problems.append(f"{name} must be {expected}{hint}")
    return SettingsError(
        "invalid setting: " + "; ".join(problems), code="invalid_setting", variables=variables
    )


def _source_error(exc: _SourceError) -> SettingsError:
    """A value pydantic-settings could not even decode (a list field that is not JSON)."""
    found = re.search(r'field "([a-z_]+)"', str(exc))
    field = found.group(1) if found else ""
    name = ENV_PREFIX + field.upper() if field else "a LITDESK_* variable"
    info = Settings.model_fields.get(field)
    hint = f" ({info.description})" if info is not None and info.description else ""
    return SettingsError(
        f"invalid setting: {name} must be valid JSON{hint}",
        code="invalid_setting",
        variables=[name],
    )


class Settings(BaseSettings):
    """All of litdesk's settings. Environment variables are ``LITDESK_<FIELD NAME>``."""

    model_config = SettingsConfigDict(
        env_prefix="LITDESK_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    def __init__(self, **values: Any) -> None:
        """Build the settings; a wrong value is a :class:`SettingsError` (a ConfigError,
        CLI exit 6) naming the variable and the expected form, not a pydantic traceback."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise _settings_error(exc) from None
        except _SourceError as exc:
            raise _source_error(exc) from None

    # --- storage -----------------------------------------------------------------
    data_dir: Path | None = Field(
        default=None,
        description="Where litdesk keeps its SQLite database, caches and indexes "
        "(default: the platform's user data directory).",
    )
    demo_dir: Path | None = Field(
        default=None,
        description="Where `litdesk demo reset` and `litdesk serve --demo` keep the offline demo "
        "workspace (default: the platform's user data directory for litdesk-demo); never "
        "the data directory.",
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL of the store; a postgresql:// URL selects PostgreSQL for a "
        "team. Default: SQLite file litdesk.sqlite3 in data_dir.",
    )
    database_pool_max: int = Field(
        default=15,
        ge=2,
        le=1000,
        description="PostgreSQL only: the most connections one process opens (opened as "
        "needed and kept open; request threads wait for one). With --workers N the database must allow N times this plus the CLI's and "
        "backups' connections (PostgreSQL's max_connections is 100 by default).",
    )

    # --- object store (issue 29: several hosts) ---------------------------------------
    object_store: str | None = Field(
        default=None,
        max_length=1_100,
        pattern=r"^(s3://[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9](/[^\s?#\\]{0,500})?|file:///[^\s?#]{1,1000})$",
        description="Where the files users need (uploaded PDFs, index vectors, chat sessions, "
        "reports) are kept: s3://bucket/prefix for an S3-compatible store shared by every "
        "host of a team server, file:///path for a folder (a shared mount). Default: the "
        "data directory itself (one host).",
    )
    object_store_endpoint: str | None = Field(
        default=None,
        max_length=500,
        pattern=r"^https?://[A-Za-z0-9.\-\[\]:]{1,255}/?$",
        description="The S3-compatible service's URL (e.g. https://minio.lab.example:9000); "
        "default: AWS S3 of object_store_region. The only address the credentials go to.",
    )
    object_store_region: str = Field(
        default="us-east-1",
        pattern=r"^[a-z0-9\-]{1,40}$",
        description="The S3 region the requests are signed for.",
    )
    object_store_access_key: SecretStr | None = Field(
        default=None,
        description="The S3 access key id (environment only; never logged).",
    )
    object_store_secret_key: SecretStr | None = Field(
        default=None,
        description="The S3 secret access key (environment only; never logged).",
    )
    object_store_timeout: float = Field(
        default=20.0,
        gt=0,
        le=600,
        description="Seconds to connect to and to wait on the object store per request.",
    )
    object_store_max_bytes: int = Field(
        default=300_000_000,
        ge=1_000_000,
        le=5_000_000_000,
        description="The largest file put into or read from the object store (bytes).",
    )
    object_store_sync_seconds: float = Field(
        default=2.0,
        ge=0,
        le=3_600,
        description="How often (seconds) a host lists the object store for PDFs another host "
        "added to the inbox (0: on every look at the library).",
    )

    # --- providers and transport ---------------------------------------------------
    contact_email: str | None = Field(
        default=None,
        description="Your e-mail address for the providers' polite pools (Crossref/OpenAlex "
        "mailto, NCBI email, User-Agent).",
    )
    openalex_api_key: SecretStr | None = Field(
        default=None,
        description="OpenAlex API key (required by OpenAlex; free). Sent only to api.openalex.org.",
    )
    semantic_scholar_api_key: SecretStr | None = Field(
        default=None,
        description="Semantic Scholar x-api-key. Sent only to api.semanticscholar.org.",
    )
    ncbi_api_key: SecretStr | None = Field(
        default=None,
        description="NCBI E-utilities api_key (raises the pace from 3 to 10 requests/s). "
        "Sent only to eutils.ncbi.nlm.nih.gov.",
    )
    crossref_plus_token: SecretStr | None = Field(
        default=None,
        description="Crossref Metadata Plus token. Sent only to api.crossref.org.",
    )
    zotero_api_key: SecretStr | None = Field(
        default=None,
        description="Zotero Web API key (`zotero import-web`, `zotero push --library`). "
        "Sent only to api.zotero.org.",
    )
    http_connect_timeout: float = Field(
        default=10.0, gt=0, le=120, description="Seconds to wait for a provider connection."
    )
    http_read_timeout: float = Field(
        default=20.0, gt=0, le=300, description="Seconds to wait for provider response bytes."
    )
    http_max_response_bytes: int = Field(
        default=3_000_000,
        gt=0,
        le=100_000_000,
        description="Largest provider response body litdesk reads (bytes); larger ones are refused.",
    )

    # --- allowances (daily, per provider: the lab's total and each account's share) --------
    daily_requests: int = Field(
        default=400,
        ge=1,
        le=100_000,
        description="Daily calls allowed to each provider in total (the lab's allowance, "
        "every account together), unless provider_daily_requests or (OpenAlex) "
        "openalex_daily_requests names another.",
    )
    provider_daily_requests: dict[str, Annotated[int, Field(ge=1, le=100_000)]] = Field(
        default_factory=dict,
        description='Daily calls in total per provider by name, e.g. {"crossref": 2000} '
        "(JSON in the environment); overrides daily_requests for the providers named.",
    )
    openalex_daily_requests: int = Field(
        default=500, ge=1, le=100_000, description="Daily OpenAlex calls allowed in total."
    )
    owner_share: float = Field(
        default=0.25,
        gt=0,
        le=1,
        description="The share of each lab-wide daily allowance (every provider's and the "
        "AI-assistance one) one account may spend when its own cap is not set: 0.25 lets "
        "four accounts spend the lab's day and no single account more than a quarter.",
    )
    owner_daily_requests: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="Daily calls to each provider allowed per account (capped at the "
        "provider's total); default: owner_share of that total.",
    )

    # --- PDF library and synthesis -------------------------------------------------
    library_dirs: list[Path] = Field(
        default_factory=list,
        description="PDF library folders (searched recursively); earlier ones win on "
        "duplicate file names. JSON list in the environment.",
    )
    inbox_dir: Path | None = Field(
        default=None,
        description="An inbox folder of new PDFs, indexed after the library folders (default: "
        "<data dir>/library/inbox, where the web page's uploads go, once it exists).",
    )
    library_index_workers: int = Field(
        default=2,
        ge=1,
        le=16,
        description="Processes that read the PDFs while the library is indexed; a PDF that "
        "crashes or stalls the reader then cannot take the server with it. 1: read in the "
        "indexing process itself (a one-shot tool; the test suite, where starting reader "
        "processes for every small index costs more than the reading).",
    )
    embedder: str = Field(
        default="wordllama+use-m3",
        description="Embedder for the PDF library: 'wordllama+use-m3' (offline default: "
        "wordllama's English word vectors joined with the multilingual Universal Sentence "
        "Encoder, so English questions find Spanish or Portuguese passages), 'wordllama' "
        "(the light option: several times faster to index, English only), 'use-m3', "
        "'sentence-transformers:<model>' or 'ollama:<model>'; 'a+b' joins two. Changing it "
        "rebuilds the index once.",
    )
    llm_backend: str = Field(
        default="none",
        description="Model backend for answers and reports: 'none' (extractive answers), "
        "'anthropic' or 'openai' (any OpenAI-compatible server: Ollama, llama.cpp, vLLM).",
    )
    chat_model: str | None = Field(default=None, description="Model id for chat answers.")
    generation_model: str | None = Field(
        default=None, description="Model id for report generation (default: chat_model)."
    )
    openai_base_url: str = Field(
        default="http://127.0.0.1:11434/v1",
        description="Base URL of the OpenAI-compatible server (default: a local Ollama).",
    )
    openai_api_key: SecretStr | None = Field(
        default=None, description="API key for the OpenAI-compatible server, if it needs one."
    )
    anthropic_api_key: SecretStr | None = Field(
        default=None, description="Anthropic API key; sent only to api.anthropic.com."
    )
    thinking: str = Field(
        default="off",
        pattern="^(off|low|medium|high)$",
        description="Thinking level for models that support it: off, low, medium, high.",
    )
    generation_thinking: str | None = Field(
        default=None,
        pattern="^(off|low|medium|high)$",
        description="Thinking level of the generation role (a report's cross-paper question "
        "answers and its synthesis): off, low, medium, high; unset: the same as thinking.",
    )

    # --- library retrieval (the ranker's parameters: core.library.RetrievalParams) -------
    retrieval_exact_below: int = Field(
        default=50_000,
        ge=1,
        le=100_000_000,
        description="Chunks from which a whole-library question searches a stored IVF "
        "index (approximate, kept under <data dir>/library/ivf) instead of scanning every "
        "chunk's vector.",
    )
    retrieval_pool_min: int = Field(
        default=50,
        ge=1,
        le=10_000,
        description="Fewest candidates each ranking of a library question returns "
        "(semantic and full-text; the pool is the larger of this and 10 times --top-k).",
    )
    retrieval_rerank_depth: int = Field(
        default=0,
        ge=0,
        le=1_000,
        description="Fused candidates of a library question re-ranked by their support "
        "(0: the fusion order only).",
    )
    retrieval_rerank_fusion: float = Field(
        default=1.0,
        ge=0,
        le=100,
        description="Weight of the fusion score (as a share of the best) beside the support "
        "when retrieval_rerank_depth re-ranks.",
    )
    retrieval_facet_slots: int = Field(
        default=3,
        ge=0,
        le=20,
        description="Excerpts guaranteed to each part of a library question that asks "
        "several things, from the part's own ranking (0: the question is ranked whole only).",
    )
    retrieval_facet_whole: bool = Field(
        default=True,
        description="The whole question's ranking takes its turn for the excerpts beside "
        "its parts' rankings.",
    )
    retrieval_proximity_depth: int = Field(
        default=40,
        ge=0,
        le=1_000,
        description="Fused candidates re-ranked by proximity (how many of the question's "
        "words one 24-word stretch holds; 0: off).",
    )
    retrieval_proximity_weight: float = Field(
        default=0.5,
        ge=0,
        le=100,
        description="Weight of the proximity beside the fusion score (as a share of the best).",
    )
    retrieval_proximity_facets_only: bool = Field(
        default=True,
        description="The proximity re-rank applies to the question's parts' rankings only, "
        "not to the whole question's.",
    )
    retrieval_second_papers: int = Field(
        default=2,
        ge=0,
        le=100,
        description="Leading papers whose excerpts the second pass ranks again within the "
        "paper, with term weights taken inside it (0: off).",
    )
    retrieval_second_weight: float = Field(
        default=4.0,
        ge=0,
        le=100,
        description="Weight of the in-paper term coverage in the second pass.",
    )
    retrieval_second_facets_only: bool = Field(
        default=False,
        description="The second pass leaves the whole question's ranking out (the parts' "
        "rankings only).",
    )
    retrieval_second_foreign: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="The second pass also ranks again a leading paper in another language than "
        "the question when the cross-lingual word bridge finds its words for at least this "
        "share of the question's words (0: never; needs a multilingual embedder).",
    )
    retrieval_bridged_support: bool = Field(
        default=True,
        description="An answer shows (and abstention judges) a passage in another language "
        "than the question by the question's words the cross-lingual word bridge finds in it, "
        "not by the meaning of the whole passage alone.",
    )

    # --- web workspace ---------------------------------------------------------------
    web_host: str = Field(default="127.0.0.1", description="Address `litdesk serve` listens on.")
    web_port: int = Field(
        default=8765, ge=1, le=65535, description="Port `litdesk serve` listens on."
    )
    web_import_job_bytes: int = Field(
        default=2_000_000,
        ge=0,
        le=60_000_000,
        description="Web imports whose files total more than this many bytes run as a "
        "background job (kind imports.study) on the store's queue, answered with 202 and "
        "the job; smaller ones are imported within the request.",
    )

    # --- AI assistance (issue 16: consent, allowances, evidence extraction) ----------
    generation_backend: str | None = Field(
        default=None,
        pattern="^(none|anthropic|openai)$",
        description="Model backend for the generation role (evidence extraction, Study "
        "summaries): 'anthropic' or 'openai' (default: llm_backend).",
    )
    anthropic_base_url: str | None = Field(
        default=None,
        description="Explicit Anthropic API base URL (https, or http on loopback for a local "
        "proxy); the key goes only there. Default: https://api.anthropic.com.",
    )
    assist_daily_requests: int = Field(
        default=100, ge=1, le=10_000, description="Daily AI-assistance model calls in total."
    )
    assist_owner_daily_requests: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="Daily AI-assistance model calls per account (capped at the total); "
        "default: owner_share of the total.",
    )
    assist_spacing_seconds: float = Field(
        default=10.0,
        ge=0,
        le=3_600,
        description="Minimum seconds between two AI-assistance calls of one owner.",
    )
    assist_timeout_seconds: float = Field(
        default=80.0, gt=0, le=600, description="Seconds one AI-assistance model call may take."
    )
    chat_daily_requests: int = Field(
        default=1_000,
        ge=1,
        le=100_000,
        description="Daily model calls of the paper chat and `litdesk ask` in total (each "
        "question makes one to three: the English variant, the answer, one retry).",
    )
    chat_owner_daily_requests: int = Field(
        default=300,
        ge=1,
        le=100_000,
        description="Daily model calls of the paper chat and `litdesk ask` per account "
        "(capped at the total).",
    )
    report_daily_requests: int = Field(
        default=3_000,
        ge=1,
        le=100_000,
        description="Daily model calls of report builds in total (one or two per "
        "question, summary facet and synthesis).",
    )
    report_owner_daily_requests: int = Field(
        default=1_500,
        ge=1,
        le=100_000,
        description="Daily model calls of report builds per account (capped at the total).",
    )

    # --- live searches of the web search page ------------------------------------------
    live_stale_seconds: float = Field(
        default=30.0,
        ge=1,
        le=3600,
        description="Seconds a running live search may go without its worker's heartbeat; "
        "after that (the worker stopped) every worker reports the search as failed.",
    )

    # --- background jobs and the web library page (web-library) ------------------------
    jobs_lease_seconds: float = Field(
        default=30.0,
        ge=1,
        le=3600,
        description="Seconds a worker holds a background job without a heartbeat; after "
        "that (its process died) another worker resumes the job.",
    )
    jobs_poll_seconds: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="Seconds between a process's checks of the job queue for its idle job "
        "workers (one check for all of them), for jobs queued by another process (a job "
        "queued in this process, or a lease running out, wakes a worker at once).",
    )
    jobs_max_active_per_account: int = Field(
        default=20,
        ge=1,
        le=1_000,
        description="Most background jobs of every kind together (chat questions, imports, "
        "whole searches, AI assistance, reports, deduplication…) one account may have "
        "queued or running at once; past it a new one is refused (429 on the web).",
    )
    import_memory_budget_mb: int = Field(
        default=768,
        ge=16,
        le=65_536,
        description="Memory (MB, estimated from each upload's size) that the Study ZIP "
        "recoveries and file imports running at once in one server process may use "
        "together; an import that does not fit waits up to import_wait_seconds, then is "
        "refused (429, try again) — a larger one than the whole budget runs alone.",
    )
    import_wait_seconds: float = Field(
        default=10.0,
        ge=0,
        le=300,
        description="Seconds an import waits for room in import_memory_budget_mb.",
    )
    jobs_worker_slots: int = Field(
        default=1, ge=0, le=16, description="Job worker threads per server process (0: none)."
    )
    dedup_test_step_seconds: float = Field(
        default=0.0,
        ge=0,
        le=10,
        description="Test only (keep 0): seconds a web deduplication run waits after reading "
        "each import of its Study, so that tests can watch, cancel or kill a run mid-way.",
    )
    library_upload_max_bytes: int = Field(
        default=100_000_000,
        ge=1_000,
        le=200_000_000,
        description="Largest PDF accepted by an upload to the library's inbox (bytes).",
    )
    library_upload_max_files: int = Field(
        default=50, ge=1, le=500, description="Most PDFs accepted by one upload request."
    )

    # --- team server (issue 17: accounts, sessions, `litdesk serve --team`) ----------------
    team_public_origin: str | None = Field(
        default=None,
        pattern=r"^https?://[A-Za-z0-9.\-\[\]:]{1,255}$",
        description="The exact origin users open behind the reverse proxy, e.g. "
        "https://litdesk.lab.example (writes must come from it; https makes cookies Secure). "
        "Default: http://<host>:<port> of `litdesk serve --team`.",
    )
    session_hours: float = Field(
        default=12.0, gt=0, le=24 * 30, description="How long a team login session lasts (hours)."
    )
    login_max_failures_user_address: int = Field(
        default=5,
        ge=1,
        le=1_000,
        description="Failed logins for one user name from one client address within "
        "login_window_seconds before that name is refused from that address until the window "
        "passes (the same name from other addresses is not).",
    )
    login_max_failures_account: int = Field(
        default=20,
        ge=1,
        le=100_000,
        description="Failed logins for one user name from all addresses within "
        "login_window_seconds past which an address that has failed for it may try it only "
        "once every login_slow_seconds (429 with Retry-After); an address without failures "
        "of its own is never slowed, so the right password from it always signs in.",
    )
    login_slow_seconds: int = Field(
        default=60,
        ge=1,
        le=3_600,
        description="Past login_max_failures_account, how long an address that failed for "
        "that user name waits between its attempts at it.",
    )
    login_max_failures_address: int = Field(
        default=20,
        ge=1,
        le=100_000,
        description="Failed logins from one client address within login_window_seconds "
        "before that address's logins are refused until the window passes.",
    )
    login_window_seconds: int = Field(
        default=900,
        ge=1,
        le=86_400,
        description="The window (seconds) over which failed logins are counted.",
    )
    forwarded_allow_ips: str = Field(
        default="",
        max_length=2_000,
        description="Comma-separated addresses of the reverse proxies whose X-Forwarded-For/"
        "-Proto headers `litdesk serve --team` trusts (the client address throttled per login); "
        "empty (the default): none, not even a direct client on loopback.",
    )
    serve_replay: Path | None = Field(
        default=None,
        description="Cassette folder the workers of `litdesk serve --team --workers N` answer "
        "provider requests from (set by `litdesk serve --replay`; tests and benchmarks).",
    )

    # --- single sign-on through OpenID Connect (issue 17; team server) ---------------------
    oidc_issuer: str | None = Field(
        default=None,
        max_length=500,
        pattern=r"^https?://[^\s?#]{1,490}$",
        description="OpenID Connect issuer URL (exactly as the provider's discovery document "
        "names it, e.g. https://login.lab.example/realms/lab); setting it with the client id "
        "shows 'Sign in with …' on the team server's login page. https unless loopback.",
    )
    oidc_client_id: str | None = Field(
        default=None,
        max_length=500,
        description="The client id litdesk is registered under at the OpenID provider.",
    )
    oidc_client_secret: SecretStr | None = Field(
        default=None,
        description="The client secret of that registration (environment only); sent only to "
        "the provider's token endpoint, never logged.",
    )
    oidc_scopes: str = Field(
        default="openid email profile",
        pattern=r"^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$",
        max_length=500,
        description="Space-separated scopes asked for at sign-in ('openid' is always added).",
    )
    oidc_display_name: str = Field(
        default="single sign-on",
        min_length=1,
        max_length=60,
        description="The provider's name on the login page's button ('Sign in with <name>').",
    )
    oidc_create_accounts: bool = Field(
        default=False,
        description="Create an account for an identity no account is linked to (its e-mail "
        "must be verified, and in oidc_email_domains when that is set); default: refused, "
        "an administrator links it with `litdesk user link`.",
    )
    oidc_email_domains: str = Field(
        default="",
        max_length=2_000,
        pattern=r"^[A-Za-z0-9.,\- ]*$",
        description="Comma-separated e-mail domains whose verified addresses may get a new "
        "account when oidc_create_accounts is on (empty: any verified address).",
    )
    oidc_max_starts_address: int = Field(
        default=60,
        ge=1,
        le=100_000,
        description="Single sign-ons one client address may start within "
        "login_window_seconds before its further starts are refused until the window passes.",
    )
    oidc_allowed_hosts: str = Field(
        default="",
        max_length=2_000,
        pattern=r"^[A-Za-z0-9.,:\-\[\] ]*$",
        description="Comma-separated extra hosts (host or host:port) the provider's "
        "authorization, token and JWKS endpoints may be on besides the issuer's own host.",
    )

    def retrieval_params(self) -> RetrievalParams:
        """The library ranker's parameters (the ``retrieval_*`` fields, prefix dropped)."""
        from litdesk.core.library import RetrievalParams  # numpy: not at settings import

        names = [f.name for f in fields(RetrievalParams)]
        return RetrievalParams(**{n: getattr(self, RETRIEVAL_PREFIX + n) for n in names})

    def share_of(self, total: int, own: int | None = None) -> int:
        """One account's daily cap out of ``total``: ``own`` when set, else
        :attr:`owner_share` of the total (at least 1); never above the total."""
        cap = own if own is not None else max(1, int(total * self.owner_share))
        return min(cap, total)

    def provider_limits(self, provider: str, total: int | None = None) -> tuple[int, int]:
        """``(lab-wide, per-account)`` daily calls to ``provider``: its entry in
        :attr:`provider_daily_requests`, else ``total`` (the provider's own setting), else
        :attr:`daily_requests`; the account's cap from :meth:`share_of`."""
        lab = self.provider_daily_requests.get(provider, total or self.daily_requests)
        return lab, self.share_of(lab, self.owner_daily_requests)

    #: set only by :meth:`for_demo` (no variable or .env line can turn it on)
    _demo: bool = PrivateAttr(default=False)

    @property
    def demo(self) -> bool:
        """True in the demo workspace (settings made by :meth:`for_demo`)."""
        return self._demo

    def for_demo(self, data_dir: Path) -> Settings:
        """These settings for the offline demo workspace in ``data_dir``: its own SQLite
        file there (never ``database_url``), no inbox or replay folder of the real
        workspace, and the demo sample offered as a search source."""
        made = self.model_copy(
            update={
                "data_dir": data_dir,
                "database_url": None,
                "inbox_dir": None,
                "serve_replay": None,
            }
        )
        made._demo = True
        return made

    def resolved_demo_dir(self) -> Path:
        """The demo workspace's directory (``demo_dir`` or the user data dir of litdesk-demo)."""
        if self.demo_dir is not None:
            return self.demo_dir
        return Path(platformdirs.user_data_dir("litdesk-demo", appauthor=False))

    def resolved_data_dir(self) -> Path:
        """The data directory, defaulting to the platform's user data dir."""
        if self.data_dir is not None:
            return self.data_dir
        return Path(platformdirs.user_data_dir("litdesk", appauthor=False))

    def resolved_database_url(self) -> str:
        """The store URL: ``database_url`` or a SQLite file in the data directory."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.resolved_data_dir() / 'litdesk.sqlite3'}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, built on first use (never at import time)."""
    return Settings()
