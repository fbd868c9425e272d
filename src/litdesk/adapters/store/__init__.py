"""The store: SQLAlchemy Core tables with Alembic migrations, on SQLite or PostgreSQL.

``open_store(settings)`` opens and migrates; ``Store.read()``/``Store.write()`` give
transactions. Workspace rows live in ``_repo``; fused-search support (search runs,
cache with in-flight coalescing, allowances) in ``_search``.
"""

from . import _accounts as accounts
from . import _oidc as oidc
from . import _repo as repo
from ._accounts import LOCAL_OWNER, NotPermitted, allowance_owner
from ._assist import (
    AssistDraftRow,
    AssistReservation,
    CallStatus,
    assist_finish,
    assist_get_draft,
    assist_get_provenance,
    assist_insert_draft,
    assist_insert_provenance,
    assist_mark_draft_saved,
    assist_release,
    assist_reserve,
    assist_usage,
)
from ._dedup import DedupEntry, add_dedup_entry, list_dedup_entries
from ._engine import (
    MIGRATIONS_DIR,
    Store,
    StoredDataInvalid,
    StoreError,
    dump_json,
    load_json,
    make_engine,
    open_store,
)
from ._gates import GateAnswer, give_back, take_gate
from ._jobs import JobRow, JobsRepo
from ._links import studies_by_keys
from ._recent import (
    RECENT_MAX_AGE,
    RECENT_PER_OWNER,
    count_recent_runs,
    get_recent_run,
    recent_runs_holding,
    remember_run,
)
from ._repo import READING_STATUSES, identity_keys
from ._reports import assist_list_drafts
from ._search import (
    GLOBAL_OWNER,
    MAX_RUN_BYTES,
    CacheClaim,
    Reservation,
    SearchRunRow,
    cache_abandon,
    cache_claim,
    cache_fill,
    cache_get,
    cache_purge,
    coalesce,
    get_search_run,
    link_or_insert_run,
    list_search_runs,
    reserve,
    save_search_run,
    usage,
)

__all__ = [
    "AssistDraftRow",
    "AssistReservation",
    "CallStatus",
    "assist_finish",
    "assist_get_draft",
    "assist_get_provenance",
    "assist_insert_draft",
    "assist_insert_provenance",
    "assist_list_drafts",
    "assist_mark_draft_saved",
    "assist_release",
    "assist_reserve",
    "assist_usage",
    "LOCAL_OWNER",
    "NotPermitted",
    "accounts",
    "allowance_owner",
    "DedupEntry",
    "add_dedup_entry",
    "list_dedup_entries",
    "GLOBAL_OWNER",
    "MAX_RUN_BYTES",
    "MIGRATIONS_DIR",
    "READING_STATUSES",
    "RECENT_MAX_AGE",
    "RECENT_PER_OWNER",
    "CacheClaim",
    "GateAnswer",
    "JobRow",
    "JobsRepo",
    "Reservation",
    "SearchRunRow",
    "Store",
    "StoreError",
    "StoredDataInvalid",
    "cache_abandon",
    "cache_claim",
    "cache_fill",
    "cache_get",
    "cache_purge",
    "coalesce",
    "count_recent_runs",
    "dump_json",
    "get_recent_run",
    "get_search_run",
    "give_back",
    "link_or_insert_run",
    "identity_keys",
    "list_search_runs",
    "load_json",
    "make_engine",
    "oidc",
    "open_store",
    "recent_runs_holding",
    "remember_run",
    "repo",
    "reserve",
    "save_search_run",
    "studies_by_keys",
    "take_gate",
    "usage",
]
