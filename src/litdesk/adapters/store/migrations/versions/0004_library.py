"""The PDF library in the store: hash cache, index entries, chunks, lexical index, adopted
metadata (was ``<data dir>/library/catalogue.sqlite3``; an existing catalogue is copied in on
the library's first open, see ``litdesk.adapters.store._library.import_legacy_catalogue``).

The lexical layer differs per backend: SQLite keeps an FTS5 table over the chunks
(external content, maintained by triggers; ranked by BM25), PostgreSQL a generated
``tsvector`` column with a GIN index (ranked by ``ts_rank``). A later migration that
rebuilds ``library_chunks`` in SQLite batch mode must recreate the triggers.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "library_files",
        sa.Column("path", sa.String(4096), primary_key=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mtime_ns", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
    )
    op.create_table(
        "library_entries",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("embedder", sa.String(200), primary_key=True),
        sa.Column("chunking", sa.String(80), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason_code", sa.String(40), nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("pages", sa.Integer, nullable=True),
        sa.Column("text_layer", sa.Boolean, nullable=True),
        sa.Column("doi", sa.Text, nullable=True),
        sa.Column("arxiv", sa.Text, nullable=True),
        sa.Column("arxiv_version", sa.Integer, nullable=True),
        sa.Column("references_page", sa.Integer, nullable=True),
        sa.Column("n_chunks", sa.Integer, nullable=False, server_default="0"),
        sa.Column("dim", sa.Integer, nullable=True),
        sa.Column("head_text", sa.Text, nullable=True),
        sa.Column("vectors", sa.String(400), nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "library_chunks",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("embedder", sa.String(200), nullable=False),
        sa.Column("chunking", sa.String(80), nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("page", sa.Integer, nullable=False),
        sa.Column("char_start", sa.Integer, nullable=False),
        sa.Column("char_end", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.UniqueConstraint("sha256", "embedder", "chunking", "idx", name="uq_library_chunk"),
    )
    op.create_table(
        "library_metadata",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("lookup", sa.String(400), nullable=False),
        sa.Column("adopted_at", sa.String(40), nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "ALTER TABLE library_chunks ADD COLUMN tsv tsvector"
            " GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED"
        )
        op.execute("CREATE INDEX ix_library_chunks_tsv ON library_chunks USING gin (tsv)")
    else:
        op.execute(
            "CREATE VIRTUAL TABLE library_chunks_fts USING fts5(text, content='library_chunks',"
            " content_rowid='id', tokenize='unicode61 remove_diacritics 2')"
        )
        op.execute(
            "CREATE TRIGGER library_chunks_ai AFTER INSERT ON library_chunks BEGIN"
            " INSERT INTO library_chunks_fts (rowid, text) VALUES (new.id, new.text); END"
        )
        op.execute(
            "CREATE TRIGGER library_chunks_ad AFTER DELETE ON library_chunks BEGIN"
            " INSERT INTO library_chunks_fts (library_chunks_fts, rowid, text)"
            " VALUES ('delete', old.id, old.text); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DROP TRIGGER IF EXISTS library_chunks_ad")
        op.execute("DROP TRIGGER IF EXISTS library_chunks_ai")
        op.execute("DROP TABLE IF EXISTS library_chunks_fts")
    op.drop_table("library_metadata")
    op.drop_table("library_chunks")
    op.drop_table("library_entries")
    op.drop_table("library_files")
