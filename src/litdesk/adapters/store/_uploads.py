"""Uploaded export files waiting for their import job (migration 0013_import_uploads):
the bytes of each file with its SHA-256, keyed by the job, so that any worker of a team
server can run a large web import. The rows are deleted in the transaction that records
the import (with the job's result kept as its checkpoint, so a job claimed again after
its worker died gives that result back and imports nothing twice), when the job fails,
or — for a job that ended before any worker ran it, or files whose job was never
queued — by the next submit's sweep.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._engine import StoredDataInvalid, dump_json
from ._jobs import FINAL, jobs

__all__ = [
    "ORPHAN_SECONDS",
    "ImportUpload",
    "drop_import_uploads",
    "import_uploads",
    "put_import_uploads",
    "record_import_done",
    "sweep_import_uploads",
]

_meta = sa.MetaData()

import_uploads_table = sa.Table(
    "import_uploads",
    _meta,
    sa.Column("job_id", sa.String(32), primary_key=True),
    sa.Column("no", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)
#: Files stored for a job that was never queued (its process died between storing them and
#: queueing it) are swept once they are this old.
ORPHAN_SECONDS: Final = 3600


@dataclass(frozen=True, slots=True)
class ImportUpload:
    """One stored upload of an import job (``no``: its place in the request)."""

    no: int
    name: str
    sha256: str
    data: bytes


def put_import_uploads(conn: Connection, job_id: str, files: Sequence[tuple[str, bytes]]) -> None:
    """Keep the files of ``job_id`` (name, bytes) with their SHA-256, in order."""
    t = import_uploads_table
    now = _iso(datetime.now(UTC))
    for no, (name, data) in enumerate(files):
        conn.execute(
            sa.insert(t).values(
                job_id=job_id,
                no=no,
                name=name[:200],
                sha256=hashlib.sha256(data).hexdigest(),
                size=len(data),
                data=data,
                created_at=now,
            )
        )


def import_uploads(conn: Connection, job_id: str) -> list[ImportUpload]:
    """The job's files in order, each checked against its SHA-256."""
    t = import_uploads_table
    rows = conn.execute(
        sa.select(t.c.no, t.c.name, t.c.sha256, t.c.data)
        .where(t.c.job_id == job_id)
        .order_by(t.c.no)
    ).all()
    out: list[ImportUpload] = []
    for no, name, sha, data in rows:
        body = bytes(data)
        if hashlib.sha256(body).hexdigest() != sha:
            raise StoredDataInvalid(
                f"stored upload {no} of job {job_id} does not match its SHA-256"
            )
        out.append(ImportUpload(int(no), str(name), str(sha), body))
    return out


def drop_import_uploads(conn: Connection, job_id: str) -> int:
    """Delete the job's files; how many."""
    t = import_uploads_table
    return conn.execute(sa.delete(t).where(t.c.job_id == job_id)).rowcount


def sweep_import_uploads(conn: Connection) -> int:
    """Delete the files of jobs that have ended (cancelled before a worker ran them) or
    were never queued (older than :data:`ORPHAN_SECONDS`); how many."""
    t = import_uploads_table
    ended = sa.select(jobs.c.id).where(jobs.c.status.in_(FINAL))
    cutoff = _iso(datetime.now(UTC) - timedelta(seconds=ORPHAN_SECONDS))
    gone = sa.and_(
        ~sa.exists(sa.select(jobs.c.id).where(jobs.c.id == t.c.job_id)), t.c.created_at < cutoff
    )
    return conn.execute(sa.delete(t).where(sa.or_(t.c.job_id.in_(ended), gone))).rowcount


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="microseconds")


def record_import_done(
    conn: Connection, job_id: str, worker: str, checkpoint: dict[str, object]
) -> bool:
    """In the import's own transaction: keep ``checkpoint`` on the job and delete its
    files — only while ``worker`` still holds the job (``False`` otherwise: the caller
    rolls the import back, the job's new holder does it)."""
    held = sa.and_(jobs.c.id == job_id, jobs.c.worker == worker, jobs.c.status == "running")
    n = conn.execute(sa.update(jobs).where(held).values(checkpoint=dump_json(checkpoint))).rowcount
    if n != 1:
        return False
    drop_import_uploads(conn, job_id)
    return True
