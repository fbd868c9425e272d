"""The store's per-use-case reads built once and bound at execution (issue 26, branch sqla32),
on SQLite and PostgreSQL: a Study found with the account's role in ONE statement (the access
check every screening, full-text, form and sharing use case makes; it used to read the Study,
then its owner, then the membership again), each account and Study bound afresh (never the
previous call's), and the screening reads of one Study never another's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa

from litdesk._errors import NotFoundError
from litdesk.adapters.store import Store, repo, screening, trash
from litdesk.adapters.store import accounts as access

NOW = "2026-12-07T22:00:00+00:00"


@contextmanager
def _statements(store: Store) -> Iterator[list[str]]:
    """The statements sent inside the block, ``BEGIN`` left out."""
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_a: Any) -> None:
        if not statement.lstrip().upper().startswith("BEGIN"):
            seen.append(statement)

    sa.event.listen(store.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", note)


def _studies(store: Store) -> tuple[str, str]:
    with store.write() as conn:
        a = repo.insert_study(conn, "study_a", "A", None, NOW, owner="acct_ann").id
        b = repo.insert_study(conn, "study_b", "B", None, NOW, owner="acct_ben").id
        access.set_member(conn, a, "acct_ben", "viewer", "acct_ann", NOW)
        access.set_member(conn, b, "acct_ann", "editor", "acct_ben", NOW)
    return a, b


def test_a_study_and_the_accounts_role_in_one_statement(store: Store) -> None:
    a, b = _studies(store)
    expected = {
        (a, "acct_ann"): "owner",
        (a, "acct_ben"): "viewer",
        (a, "acct_cat"): None,
        (a, access.LOCAL_OWNER): "owner",
        (b, "acct_ann"): "editor",
        (b, "acct_ben"): "owner",
        (b, "acct_cat"): None,
    }
    for (study, account), role in [*expected.items(), *reversed(expected.items())]:
        with store.read() as conn:
            with _statements(store) as seen:
                row, got = repo.get_study_role(conn, study, account=account)
            assert (row.id, got, len(seen)) == (study, role, 1)
            assert got == access.study_role(conn, account, study)  # the two-read answer
    with store.read() as conn:
        row, got = repo.get_study_role(conn, "B", account="acct_ann")  # by name, shared
        assert (row.id, got) == (b, "editor")
        with pytest.raises(NotFoundError):
            repo.get_study_role(conn, "no_such_study", account="acct_ann")
        assert access.require_role(repo.get_study_role(conn, a, account="acct_ben")[1], "read")
    with store.write() as conn:
        trash.add_trash(
            conn, "trash_b", study_id=b, owner="acct_ben", kind="study", target=b, label="B",
            data={}, now=NOW,
        )  # fmt: skip
    with store.read() as conn:
        with pytest.raises(NotFoundError):  # a deleted Study is in its trash
            repo.get_study_role(conn, b, account="acct_ben")
        assert repo.get_study_role(conn, a, account="acct_ann")[1] == "owner"


def test_screening_reads_bound_per_study(store: Store) -> None:
    a, b = _studies(store)
    with store.write() as conn:
        screening.put_settings(conn, a, {"order": "a"}, by="acct_ann", now=NOW)
        for study, n in ((a, 2), (b, 1)):
            for i in range(n):
                screening.add_decision(
                    conn, study, record_key=f"r{i}", stage="title_abstract", reviewer="acct_ann",
                    kind="decision", verdict="include", source="test", made_at=NOW,
                )  # fmt: skip
    with store.read() as conn:
        settings = screening.get_settings(conn, a)
        assert settings is not None and settings.data == {"order": "a"}
        assert screening.get_settings(conn, b) is None
        assert screening.count_decisions(conn, a)[0] == 2
        assert screening.count_decisions(conn, b)[0] == 1
        assert [d.study_id for d in screening.list_decisions(conn, b)] == [b]
        first = screening.list_decisions(conn, a)[0].id
        assert [d.record_key for d in screening.list_decisions(conn, a, after=first)] == ["r1"]
        assert screening.list_decisions(conn, a, stage="full_text") == []
        assert len(screening.list_decisions(conn, a, stage="title_abstract")) == 2
        assert screening.record_fingerprint(conn, a) == screening.record_fingerprint(conn, b)
        assert screening.model_version(conn, a, "title_abstract") is None
