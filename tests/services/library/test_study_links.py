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
        store,
        ["doi:10.1155/2010/157939", "arxiv:2501.10120", "doi:10.9999/unlinked", "doi:x"],
        visible_to="local",
    )
    assert found == {
        "doi:10.1155/2010/157939": [(b.id, "A review"), (a.id, "B review")],
        "arxiv:2501.10120": [(b.id, "A review")],
    }
    assert studies_by_keys(store, [], visible_to="local") == {}


def test_a_pdf_links_only_to_studies_the_account_may_see(store: Store) -> None:
    """The library is one per server; the Studies its PDFs link to are each account's."""
    ana, bob = Workspace(store, owner="acct_ana"), Workspace(store, owner="acct_bob")
    private = ana.create_study("Ana private")
    paper = ana.save_paper(make_paper(doi="10.1155/2010/157939", title="One")).paper
    ana.add_to_study(private.id, paper.id)
    key = ["doi:10.1155/2010/157939"]
    assert studies_by_keys(store, key, visible_to="acct_ana") == {
        key[0]: [(private.id, "Ana private")]
    }
    assert studies_by_keys(store, key, visible_to="acct_bob") == {}
    bobs = bob.create_study("Ana private")  # bob's own, named alike
    bob.save_paper(make_paper(doi="10.1155/2010/157939", title="One"))
    bob.add_to_study(bobs.id, paper.id)
    assert studies_by_keys(store, key, visible_to="acct_bob") == {
        key[0]: [(bobs.id, "Ana private")]
    }
    assert len(studies_by_keys(store, key, visible_to="local")[key[0]]) == 2
