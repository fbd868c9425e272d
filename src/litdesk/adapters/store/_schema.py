"""The store's tables (SQLAlchemy Core). The migrations in ``migrations/`` create them.

JSON documents are kept as text and validated by their readers on every read; times
are ISO 8601 UTC strings, except cache expiry (epoch seconds) which is compared.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "accounts",
    "allowances",
    "citation_listings",
    "dedup_run_pairs",
    "dedup_runs",
    "login_failures",
    "paper_savers",
    "sessions",
    "study_history",
    "study_members",
    "evidence",
    "evidence_subjects",
    "imports",
    "live_searches",
    "metadata",
    "notes",
    "oidc_flows",
    "oidc_links",
    "paper_keys",
    "papers",
    "recent_runs",
    "search_cache",
    "screening_decisions",
    "screening_models",
    "screening_retrieval",
    "screening_settings",
    "screening_vectors",
    "search_runs",
    "studies",
    "study_forms",
    "study_papers",
    "study_records",
    "study_search_runs",
]

metadata = sa.MetaData()

_ID = 64
_WHEN = 40

#: a paper record belongs to its owner (an account; ``local`` in single-user mode): the same
#: work in two accounts is two records (``owner``, ``id``) that never overwrite each other
#: (migration 0026_paper_owners); a Study's papers are records of the accounts that added them
papers = sa.Table(
    "papers",
    metadata,
    sa.Column("owner", sa.String(_ID), primary_key=True, server_default="local"),
    sa.Column("id", sa.String(130), primary_key=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=True),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("updated_at", sa.String(_WHEN), nullable=False),
    sa.Index("ix_papers_id", "id"),
)

#: the identifiers under which each owner's records are known (``doi:…``, ``id:…``): one
#: owner's keys never name another's record
paper_keys = sa.Table(
    "paper_keys",
    metadata,
    sa.Column("owner", sa.String(_ID), primary_key=True),
    sa.Column("key", sa.String(600), primary_key=True),
    sa.Column("paper_id", sa.String(130), nullable=False),
    sa.ForeignKeyConstraint(
        ["owner", "paper_id"],
        ["papers.owner", "papers.id"],
        name="fk_paper_keys_paper",
        ondelete="CASCADE",
    ),
    sa.Index("ix_paper_keys_paper", "owner", "paper_id"),
    sa.Index("ix_paper_keys_key", "key"),  # lookups by key alone (0027_paper_keys_key)
)

studies = sa.Table(
    "studies",
    metadata,
    sa.Column("id", sa.String(_ID), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("owner", sa.String(_ID), nullable=False, server_default="local", index=True),
    # names are unique per owner where the caller sees the clash (checked by the store's
    # code under a lock per owner: migrations 0012_study_names, 0014_study_name_index)
    sa.Index("ix_studies_owner_name", "owner", "name"),
    #: a fresh random token at every committed write of the Study's records (``NULL``:
    #: none since the column came): what a process's kept working set is checked against
    #: (0035_records_version; ``_engine.records_changed``)
    sa.Column("records_version", sa.String(32), nullable=True),
)

study_papers = sa.Table(
    "study_papers",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("paper_id", sa.String(130), primary_key=True),
    sa.Column("added_at", sa.String(_WHEN), nullable=False),
    # whose record the Study holds (the account that added it)
    sa.Column("paper_owner", sa.String(_ID), nullable=False),
    sa.ForeignKeyConstraint(
        ["paper_owner", "paper_id"],
        ["papers.owner", "papers.id"],
        name="fk_study_papers_paper",
        ondelete="CASCADE",
    ),
)

#: A Study's extraction form (issue 27; none stored: litdesk's default six fields).
study_forms = sa.Table(
    "study_forms",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.String(_WHEN), nullable=False),
    sa.Column("updated_by", sa.String(_ID), nullable=False),
)

notes = sa.Table(
    "notes",
    metadata,
    sa.Column("id", sa.String(_ID), primary_key=True),
    sa.Column("paper_id", sa.String(130), nullable=False, index=True),
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="SET NULL"),
        nullable=True,
        index=True,
    ),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("owner", sa.String(_ID), nullable=False, server_default="local", index=True),
)

evidence = sa.Table(
    "evidence",
    metadata,
    sa.Column("id", sa.String(_ID), primary_key=True),
    sa.Column("paper_id", sa.String(130), nullable=False, index=True),
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="SET NULL"),
        nullable=True,
        index=True,
    ),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("owner", sa.String(_ID), nullable=False, server_default="local", index=True),
)

evidence_subjects = sa.Table(
    "evidence_subjects",
    metadata,
    sa.Column(
        "evidence_id",
        sa.String(_ID),
        sa.ForeignKey("evidence.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("vocabulary", sa.String(40), primary_key=True),
    sa.Column("subject_id", sa.String(64), primary_key=True),
    sa.Column("label", sa.String(300), nullable=False),
    sa.Column("position", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_evidence_subjects_subject", "vocabulary", "subject_id"),
)

search_runs = sa.Table(
    "search_runs",
    metadata,
    sa.Column("id", sa.String(100), primary_key=True),
    sa.Column("owner", sa.String(200), nullable=False, index=True),
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("run", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("executed_at", sa.String(_WHEN), nullable=False),
)

study_search_runs = sa.Table(
    "study_search_runs",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column(
        "run_id",
        sa.String(100),
        sa.ForeignKey("search_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    # when the run joined the Study (its round: litdesk.core.runs.StudyRounds; migration
    # 0030: links made before it hold the run's executed_at)
    sa.Column("added_at", sa.String(_WHEN), nullable=True),
    # when the run's hits became the Study's papers (migration 0031: NULL for a run kept
    # before, whose papers the Study's next reconcile adds; a whole search's: at once)
    sa.Column("papers_at", sa.String(_WHEN), nullable=True),
)

imports = sa.Table(
    "imports",
    metadata,
    sa.Column("id", sa.String(_ID), primary_key=True),
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="SET NULL"),
        nullable=True,
        index=True,
    ),
    sa.Column("sha256", sa.String(80), nullable=False),
    sa.Column("format", sa.String(40), nullable=False),
    sa.Column("trace", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("owner", sa.String(_ID), nullable=False, server_default="local", index=True),
)

search_cache = sa.Table(
    "search_cache",
    metadata,
    sa.Column("key", sa.String(200), primary_key=True),
    sa.Column("owner", sa.String(200), primary_key=True),
    sa.Column("state", sa.String(10), nullable=False),
    sa.Column("value", sa.Text, nullable=True),
    sa.Column("expires_at", sa.Float, nullable=False, index=True),
)

allowances = sa.Table(
    "allowances",
    metadata,
    sa.Column("provider", sa.String(100), primary_key=True),
    sa.Column("owner", sa.String(200), primary_key=True),
    sa.Column("day", sa.String(10), primary_key=True),
    sa.Column("calls", sa.Integer, nullable=False),
)

#: Append-only deduplication history of a Study (migration 0002): reviewer decisions on
#: record pairs (keyed by the two raw-record digests; the newest entry for a pair wins,
#: ``undone`` withdraws it) and a summary of every deduplication run.
dedup_history = sa.Table(
    "dedup_history",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("a_digest", sa.String(80), nullable=True),
    sa.Column("b_digest", sa.String(80), nullable=True),
    sa.Column("decision", sa.String(16), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
)

#: A Study's finished deduplication runs as the review page shows them (migration
#: 0011_dedup_runs): the run's id is its job's id (so a job claimed again after its worker
#: died finds its run recorded and records nothing twice); ``data`` holds the counts and
#: the files read. The newest few per Study are kept (``_dedup.KEEP_RUNS``).
dedup_runs = sa.Table(
    "dedup_runs",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Index("ix_dedup_runs_study_created", "study_id", "created_at"),
)

#: The review queue of a stored run, one row per pair (up to 2,000 pairs of ~2–3 kB each:
#: several MB, beyond a job's result document; a decision reads its one pair). ``a_key``
#: and ``b_key`` are the two records' digests sorted (the history's key of the pair).
dedup_run_pairs = sa.Table(
    "dedup_run_pairs",
    metadata,
    sa.Column(
        "run_id",
        sa.String(32),
        sa.ForeignKey("dedup_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("no", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("a_key", sa.String(80), nullable=False),
    sa.Column("b_key", sa.String(80), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Index("ix_dedup_run_pairs_keys", "run_id", "a_key", "b_key"),
)


# --- team mode (migration 0007_team): accounts, sessions, roles, history -----------------

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", sa.String(_ID), primary_key=True),
    sa.Column("username", sa.String(80), nullable=False, unique=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", sa.String(_WHEN), nullable=False),
    sa.Column("password_changed_at", sa.String(_WHEN), nullable=False),
)

#: a session is kept as the SHA-256 of its cookie token; times are epoch seconds
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column(
        "account_id",
        sa.String(_ID),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False, index=True),
)

login_failures = sa.Table(
    "login_failures",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("scope", sa.String(80), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("ix_login_failures_scope_at", "scope", "at"),
)

study_members = sa.Table(
    "study_members",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("account_id", sa.String(_ID), primary_key=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("added_by", sa.String(_ID), nullable=False),
    sa.Column("added_at", sa.String(_WHEN), nullable=False),
    sa.Index("ix_study_members_account", "account_id"),
)

study_history = sa.Table(
    "study_history",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("account_id", sa.String(_ID), nullable=False),
    sa.Column("action", sa.String(40), nullable=False),
    sa.Column("target", sa.String(200), nullable=True),
    sa.Column("at", sa.String(_WHEN), nullable=False),
)

#: a team account's reading status of a paper id (its own record's, or a Study's record it
#: reads); a row is also written when the account saves a record of its own
paper_savers = sa.Table(
    "paper_savers",
    metadata,
    sa.Column("paper_id", sa.String(130), primary_key=True),
    sa.Column("account_id", sa.String(_ID), primary_key=True),
    sa.Column("saved_at", sa.String(_WHEN), nullable=False),
    sa.Column("status", sa.String(16), nullable=True),
    sa.Index("ix_paper_savers_account", "account_id"),
)

#: the web searches each owner ran recently (migration 0008), so any worker can act on a
#: run another worker produced: bounded per owner and by age by ``_recent``
recent_runs = sa.Table(
    "recent_runs",
    metadata,
    sa.Column("owner", sa.String(200), primary_key=True),
    sa.Column("id", sa.String(100), primary_key=True),
    sa.Column("run", sa.Text, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False, index=True),
    sa.Index("ix_recent_runs_owner_seen", "owner", "seen_at"),
)

#: live searches (migration 0009): lanes, end state and cancel request of each search the
#: search page follows, so any worker serves its progress and its cancel; finished rows
#: expire (``_live``). Times are epoch seconds.
live_searches = sa.Table(
    "live_searches",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("lanes", sa.Text, nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("code", sa.String(80), nullable=False),
    sa.Column("run_id", sa.String(100), nullable=True),
    sa.Column("context", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False, index=True),
    sa.Column("finished_at", sa.Float, nullable=True),
    sa.Index("ix_live_searches_owner_started", "owner", "started_at"),
)

#: citation lists a page showed (migration 0009), so saving chosen works refers to records
#: litdesk retrieved, whichever worker showed the list: bounded per owner and by age
citation_listings = sa.Table(
    "citation_listings",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("papers", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False, index=True),
    sa.Index("ix_citation_listings_owner_created", "owner", "created_at"),
)


# --- single sign-on (migration 0010_oidc) --------------------------------------------------

#: an OpenID Connect identity (issuer, subject) linked to an account
oidc_links = sa.Table(
    "oidc_links",
    metadata,
    sa.Column("issuer", sa.String(500), primary_key=True),
    sa.Column("subject", sa.String(255), primary_key=True),
    sa.Column(
        "account_id",
        sa.String(_ID),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("email", sa.String(320), nullable=True),
    sa.Column("linked_at", sa.String(_WHEN), nullable=False),
)

#: a sign-in under way: the SHA-256 of its state, of the pre-login cookie it is bound to, the
#: nonce and PKCE verifier sent to the provider, where to go after; single use, short-lived
oidc_flows = sa.Table(
    "oidc_flows",
    metadata,
    sa.Column("state_hash", sa.String(64), primary_key=True),
    sa.Column("binding_hash", sa.String(64), nullable=False),
    sa.Column("nonce", sa.String(128), nullable=False),
    sa.Column("verifier", sa.String(128), nullable=False),
    sa.Column("next_path", sa.String(500), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False, index=True),
)


# --- a Study's records and working set (migration 0019_study_records) ---------------------

#: every record a Study identified (an import's record, a linked run's hit, a paper added by
#: hand), from its sources; ``grp``/``rule``: its group in the working set after deduplication
study_records = sa.Table(
    "study_records",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("key", sa.String(200), primary_key=True),
    sa.Column("source_kind", sa.String(16), nullable=False),
    sa.Column("source_id", sa.String(130), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("digest", sa.String(80), nullable=False),
    sa.Column("database", sa.String(200), nullable=False),
    sa.Column("rank", sa.Integer, nullable=True),
    sa.Column("paper_id", sa.String(130), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("added_at", sa.String(_WHEN), nullable=False),
    sa.Column("grp", sa.String(200), nullable=True),
    sa.Column("rule", sa.String(300), nullable=True),
    sa.Index("ix_study_records_source", "study_id", "source_id"),
    sa.Index("ix_study_records_grp", "study_id", "grp"),
)


# --- screening (migration 0021_screening, issue 28) -------------------------------------

#: a Study's screening settings (reasons, criteria, keywords, dual review, reveal, order)
screening_settings = sa.Table(
    "screening_settings",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("updated_at", sa.String(_WHEN), nullable=False),
    sa.Column("updated_by", sa.String(200), nullable=False),
)

#: screening decisions, append-only (never updated or deleted): ``kind`` decision | undo |
#: resolution; an undo names the row it takes back (``undoes``) and has no verdict
screening_decisions = sa.Table(
    "screening_decisions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "study_id", sa.String(_ID), sa.ForeignKey("studies.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("record_key", sa.String(200), nullable=False),
    sa.Column("stage", sa.String(16), nullable=False),
    sa.Column("reviewer", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("verdict", sa.String(8), nullable=True),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("source", sa.String(32), nullable=False),
    sa.Column("made_at", sa.String(_WHEN), nullable=False),
    sa.Column("undoes", sa.Integer, nullable=True),
    sa.Index("ix_screening_decisions_stage", "study_id", "stage"),
)

#: full text retrieved or not, per record (append-only: the latest row counts)
screening_retrieval = sa.Table(
    "screening_retrieval",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "study_id", sa.String(_ID), sa.ForeignKey("studies.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("record_key", sa.String(200), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("at", sa.String(_WHEN), nullable=False),
    sa.Column("by", sa.String(200), nullable=False),
    sa.Index("ix_screening_retrieval_study", "study_id"),
)

#: the prioritisation model's scores per Study and stage (replaced whole by the retrain job)
screening_models = sa.Table(
    "screening_models",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("stage", sa.String(16), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("trained_on", sa.Integer, nullable=False),
    sa.Column("scores", sa.Text, nullable=False),
    sa.Column("trained_at", sa.String(_WHEN), nullable=False),
    #: the model whose scores these are (none: ``litdesk-svm-2``; 0028_screening_vectors)
    sa.Column("model", sa.String(64), nullable=True),
    #: whose model: ``''`` the shared one (every reviewer's decisions); an account id the
    #: model of that reviewer's own decisions, used while the stage is blind
    #: (0034_blindmodel_reviewer_models)
    sa.Column("reviewer", sa.String(_ID), primary_key=True, server_default=""),
)

#: sentence-encoder rows of a Study's screening records, one per embedder and text (the
#: SHA-256 of title + abstract; float32 bytes), written by the embedding job
screening_vectors = sa.Table(
    "screening_vectors",
    metadata,
    sa.Column(
        "study_id",
        sa.String(_ID),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("embedder", sa.String(32), primary_key=True),
    sa.Column("text_sha", sa.String(64), primary_key=True),
    sa.Column("vector", sa.LargeBinary, nullable=False),
)
