"""The workspace's shared state and access checks: the store, the acting account, a read
snapshot, and the owner's rights on each paper and Study a call names. :class:`Workspace`
and its operation groups build on it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Self

from sqlalchemy.engine import Connection

from litdesk._errors import IntegrityError, NotFoundError
from litdesk.adapters.store import LOCAL_OWNER, Store, repo
from litdesk.adapters.store import accounts as access
from litdesk.core.records import Paper, detect_identifier

from ._results import _arxiv_base

__all__ = ["WorkspaceBase"]


class WorkspaceBase:
    """All workspace operations over one :class:`Store`.

    The store is a constructor parameter: the app's (``app.workspace()``; closed by the
    app). ``owns_store``: :meth:`close` disposes it (tests handing in a store of their own).
    """

    def __init__(self, store: Store, *, owns_store: bool = False, owner: str = LOCAL_OWNER) -> None:
        self.store = store
        self._owns_store = owns_store
        #: the acting account: every read and write is checked against its rights
        #: (``local``, the single-user owner, may do everything)
        self.owner = owner
        # the read transaction of an open snapshot(), per thread/task
        self._snapshot: ContextVar[Connection | None] = ContextVar(
            f"litdesk_snapshot_{id(self)}", default=None
        )

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read of this workspace inside the block (in this thread or task) sees one
        consistent snapshot of the store — for exports built from several reads."""
        if self._snapshot.get() is not None:
            yield
            return
        with self.store.read() as conn:
            token = self._snapshot.set(conn)
            try:
                yield
            finally:
                self._snapshot.reset(token)

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        pinned = self._snapshot.get()
        if pinned is not None:
            yield pinned
            return
        with self.store.read() as conn:
            yield conn

    def close(self) -> None:
        """Release the store when this workspace opened it (idempotent)."""
        if self._owns_store:
            self._owns_store = False
            self.store.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- access (team mode): the owner's rights on each record it names ---------------

    def _paper(self, conn: Connection, ref: str, need: access.Need = "read") -> str:
        memo = self.store.snapshot_memo() if need == "read" else None
        key = ("readable paper", self.owner, ref)
        if memo is not None and key in memo:  # resolved and checked in this snapshot
            return str(memo[key])
        keys = self._keys(ref)
        # the owner's own record under the ref, read with its lookup (one statement): a
        # record of its own the owner may read and change, so no further check is asked
        own = repo.own_rows_by_key(conn, keys, viewer=self.owner)
        if keys[0] in own:  # the first key found is its own (its own come first)
            paper_id = own[keys[0]][0]
        else:
            paper_id = self._resolve(conn, ref, keys, {k: pid for k, (pid, _) in own.items()})
        rows = [row for pid, row in own.values() if pid == paper_id]
        if not rows:  # not a record of its own: the full check
            access.require_paper(conn, self.owner, paper_id, need)
        elif memo is not None and rows[0] is not None:  # the record _row reads, read
            memo[("paper row", self.owner, paper_id)] = rows[0]
        if memo is not None:  # and its id names it too (each record is kept under its id)
            memo[key] = memo[("readable paper", self.owner, paper_id)] = paper_id
        return paper_id

    def _record(self, conn: Connection, paper_id: str) -> Paper:
        """The record the owner reads under ``paper_id`` (its own, else its Studies')."""
        return self._row(conn, paper_id).paper

    def _records(self, conn: Connection, paper_ids: set[str]) -> dict[str, Paper]:
        """The records the owner reads under ``paper_ids``, in a few statements for all
        (an id it may not read, or whose record is invalid, is left out: :meth:`_record`
        then says why for that one)."""
        if len(paper_ids) < 2:
            return {}
        try:
            return repo.get_papers(conn, paper_ids, viewer=self.owner)
        except IntegrityError:  # one invalid stored record: each is read on its own
            return {}

    def _row(self, conn: Connection, paper_id: str) -> repo.PaperRow:
        """:meth:`_record` with the owner's reading status; read once per snapshot (a
        page that shows a paper, its notes and its evidence reads its record once)."""
        memo = self.store.snapshot_memo()
        key = ("paper row", self.owner, paper_id)
        if memo is not None and key in memo:
            row: repo.PaperRow = memo[key]
            return row
        row = repo.get_paper(conn, paper_id, viewer=self.owner)
        if memo is not None:
            memo[key] = row
        return row

    def _link(self, conn: Connection, study_id: str, paper_id: str, now: str) -> bool:
        """Add the record the owner reads under ``paper_id`` to a Study (``False``: the
        Study holds that paper already)."""
        owner = repo.record_owners(conn, [paper_id], viewer=self.owner).get(paper_id)
        if owner is None:
            raise NotFoundError(f"no saved paper {paper_id[:120]}", code="paper_not_found")
        return repo.add_study_paper(conn, study_id, paper_id, now, paper_owner=owner)

    def _study(self, conn: Connection, ref: str, need: access.Need = "read") -> repo.StudyRow:
        row, _ = repo.study_with_role(conn, ref, account=self.owner, need=need)
        return row

    def _history(
        self, conn: Connection, study_id: str | None, action: str, target: str | None, now: str
    ) -> None:
        if study_id is not None:
            access.add_history(conn, study_id, self.owner, action, target, now)

    @staticmethod
    def _keys(ref: str) -> list[str]:
        """The identity keys a paper reference may be stored under, the id's first."""
        ref = ref.strip()
        keys = [f"id:{ref}"]
        found = detect_identifier(ref)
        if found is not None:
            ns, value = found
            prefix = {"openalex": "openalex", "source": "id"}.get(ns, ns)
            if ns == "arxiv":
                value = _arxiv_base(value) or value
            keys.append(f"{prefix}:{value}")
        return keys

    def _resolve(self, conn: Connection, ref: str, keys: list[str], own: dict[str, str]) -> str:
        """The paper id the owner reads under ``ref`` (``own``: its own keys among
        ``keys``, read already)."""
        matches = repo.find_visible_ids(conn, keys, viewer=self.owner, own=own)
        for key in keys:
            if key in matches:
                return matches[key]
        return self._record(conn, ref.strip()).id  # raises NotFoundError
