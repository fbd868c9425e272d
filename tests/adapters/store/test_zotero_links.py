"""The Zotero identity links (migration 0015_zotero_links) on SQLite and PostgreSQL: upsert
by (owner, library, key), owners and libraries apart, a changed paper stored with its
links in one transaction; the fields a paper has no place for (language, citation key)
kept with the link."""

from __future__ import annotations

from litdesk.adapters.store import Store
from litdesk.adapters.zotero._links import ZoteroLink, read_links, write_links, write_links_in
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace


def test_links_upsert_and_changed_papers(store: Store) -> None:
    saved = Workspace(store).save_paper(make_paper(title="Old title", doi="10.1000/z")).paper
    first = ZoteroLink("user", "ABCD2345", "item", saved.id, 1, "2025-01-01 00:00:00",
                       ("C1",), "Old title", ("t1",))  # fmt: skip
    write_links(store, [first], owner="local")
    write_links(store, [first], owner="ana")
    write_links(store, [ZoteroLink("group:7", "ABCD2345", "note", "note-1", 2, "x")], owner="local")
    assert read_links(store, owner="local", library="user") == {"ABCD2345": first}
    changed = saved.model_copy(update={"title": "New title"})
    second = ZoteroLink("user", "ABCD2345", "item", saved.id, 2, "2025-02-01 00:00:00",
                        ("C2",), "New title", ("t1", "t2"),
                        {"language": "en-GB", "citation_key": "smith2020"})  # fmt: skip
    ws = Workspace(store)
    with ws.transaction() as conn:  # the paper and its link together
        ws.update_paper_in(conn, changed)
        write_links_in(conn, [second], owner="local")
    assert read_links(store, owner="local", library="user") == {"ABCD2345": second}
    assert read_links(store, owner="ana", library="user") == {"ABCD2345": first}
    assert read_links(store, owner="local", library="group:7")["ABCD2345"].kind == "note"
    assert Workspace(store).paper(saved.id).paper.title == "New title"
