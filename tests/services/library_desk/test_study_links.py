"""PDFs link to the Studies of their papers by DOI or arXiv id, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk.adapters.store import Store, open_store, studies_by_keys
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

__all__ = ["pg_schema", "store_url"]


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = open_store(store_url)
    try:
        yield s
    finally:
        s.dispose()


def test_studies_by_keys(store: Store) -> None:
    ws = Workspace(store)
    a, b = ws.create_study("B review"), ws.create_study("A review")
    p1 = ws.save_paper(make_paper(doi="10.1155/2010/157939", title="One")).paper
    p2 = ws.save_paper(make_paper(arxiv_id="2501.10120", title="Two")).paper
    ws.save_paper(make_paper(doi="10.9999/unlinked", title="Three"))
    ws.add_to_study(a.id, p1.id)
    ws.add_to_study(b.id, p1.id)
    ws.add_to_study(b.id, p2.id)
    found = studies_by_keys(
        store, ["doi:10.1155/2010/157939", "arxiv:2501.10120", "doi:10.9999/unlinked", "doi:x"]
    )
    assert found == {
        "doi:10.1155/2010/157939": [(b.id, "A review"), (a.id, "B review")],
        "arxiv:2501.10120": [(b.id, "A review")],
    }
    assert studies_by_keys(store, []) == {}
