"""A record's key lookups of many keys at once (issue 26), on SQLite and PostgreSQL: the
same answers on both; on PostgreSQL one statement of one text for up to 5,000 keys (the keys
one array parameter, ``= ANY``), where SQLite binds an ``IN`` list of at most 500 per
statement. A whole search page's, an import's and a Study's lookups go through these."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

from litdesk.adapters.store import Store, repo
from litdesk.core.records import make_paper

NOW = "2026-12-07T11:00:00+00:00"
MANY = 1_200  # records; their keys plus 50 unknown ones are looked up at once


@contextmanager
def _statements(store: Store) -> Iterator[list[tuple[str, Any]]]:
    """The statements (text and parameters) sent inside the block, ``BEGIN`` left out."""
    seen: list[tuple[str, Any]] = []

    def note(_conn: Any, _cursor: Any, statement: str, params: Any, *_a: Any) -> None:
        if not statement.lstrip().upper().startswith("BEGIN"):
            seen.append((statement, params))

    sa.event.listen(store.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", note)


def _load(store: Store) -> tuple[dict[str, str], str, set[str]]:
    """``MANY`` of local's records with a key each, the first half in a Study, and another
    account's record under one of the same keys (never named to local's own lookup)."""
    papers = [make_paper(pmid=str(i + 1), title=f"Paper {i}") for i in range(MANY)]
    keys = {f"k:{p.id}": p.id for p in papers}
    other = make_paper(pmid="777777", title="Another account's")
    with store.write() as conn:
        repo.insert_papers(conn, papers, NOW, owner="local")
        repo.add_paper_keys(conn, keys, owner="local")
        repo.insert_papers(conn, [other], NOW, owner="acct_other")
        repo.add_paper_keys(conn, {"k:MED-1": other.id}, owner="acct_other")
        study = repo.insert_study(conn, "study_keys", "Keys", None, NOW).id
        held = {p.id for p in papers[: MANY // 2]}
        repo.add_study_papers(conn, study, sorted(held), NOW, paper_owner="local")
    return keys, study, held


def _postgres(store: Store) -> bool:
    return store.engine.dialect.name == "postgresql"


def test_an_owners_keys_in_one_statement_on_postgres(store: Store) -> None:
    keys, _study, _held = _load(store)
    wanted = [*keys, *(f"k:unknown-{i}" for i in range(50))]
    with store.read() as conn, _statements(store) as seen:
        found = repo.find_paper_ids(conn, wanted, owner="local")
    assert found == keys  # local's own records only, every one, no unknown key
    if _postgres(store):
        assert len(seen) == 1, [s for s, _ in seen]  # 3 before (IN lists of 500)
        text, params = seen[0]
        assert "= ANY (" in text and " IN (" not in text, text
        assert len(params) == 2  # the owner and the keys' array
    else:
        assert len(seen) == 3  # 1,250 keys in IN lists of 500

    # a page's few keys: the same statement text on PostgreSQL (one to parse, plan, prepare)
    with store.read() as conn, _statements(store) as few:
        assert repo.find_paper_ids(conn, ["k:MED-1", "k:MED-2", "k:no"], owner="local") == {
            "k:MED-1": "MED-1",
            "k:MED-2": "MED-2",
        }
    assert len(few) == 1
    if _postgres(store):
        assert few[0][0] == seen[0][0]


def test_a_studys_records_by_key_and_their_owners_the_same_on_both_backends(
    store: Store,
) -> None:
    keys, study, held = _load(store)
    wanted = [*keys, *(f"k:unknown-{i}" for i in range(50))]
    with store.read() as conn, _statements(store) as seen:
        in_study = repo.find_study_paper_ids(conn, wanted, study_id=study)
    assert in_study == {k: pid for k, pid in keys.items() if pid in held}
    # the keys' records, then which of them the Study holds: on SQLite 3 lists of keys and
    # 4 of ids (the first 500 keys name 501 records, another account's too); 7 before on
    # PostgreSQL as well
    assert len(seen) == (2 if _postgres(store) else 7), [s for s, _ in seen]

    ids = [*keys.values(), "MED-unknown"]
    with store.read() as conn, _statements(store) as seen:
        owners = repo.record_owners(conn, ids, viewer="local", study_id=study)
        own = repo.own_papers(conn, ids, owner="local")
    assert owners == dict.fromkeys(keys.values(), "local")
    assert sorted(own) == sorted(keys.values())
    assert all(own[pid].id == pid for pid in own)
    # the Study's links (its 600), local's own records (the other 600), the one id left
    # through the Studies local reads and through any record, then the records themselves:
    # on SQLite 3 + 2 + 1 + 1 + 3 statements (IN lists of 500), 10 before on PostgreSQL
    assert len(seen) == (5 if _postgres(store) else 3 + 2 + 1 + 1 + 3), [s for s, _ in seen]
