"""Web API item JSON → the items the offline reader makes (pure): fields, creators with
roles, tags, collections, children, link modes; hostile keys are no keys."""

from __future__ import annotations

from litdesk.core.zotero import item_paper_fields
from litdesk.core.zotero._webjson import web_collections, web_items


def _obj(key: str, **data: object) -> dict[str, object]:
    return {"key": key, "version": 7, "data": {"key": key, "version": 7, **data}}


def test_an_item_with_its_children() -> None:
    objects = [
        _obj("ABCD2345", itemType="journalArticle", title="Trial", DOI="10.1000/X",
             extra="PMID: 123\nnote", publicationTitle="BMJ", date="2021-03-04",
             abstractNote="", creators=[
                 {"creatorType": "author", "firstName": "Jane", "lastName": "Smith"},
                 {"creatorType": "editor", "name": "WHO"}],
             tags=[{"tag": "rct"}, {"tag": "a", "type": 1}], collections=["COLL2345"],
             dateAdded="2023-02-26T08:49:29Z", dateModified="2023-02-26T08:49:43Z"),
        _obj("NOTE2345", itemType="note", note="<p>hi</p>", parentItem="ABCD2345"),
        _obj("ATTC2345", itemType="attachment", parentItem="ABCD2345", linkMode="imported_url",
             contentType="application/pdf", filename="x.pdf", md5="abc"),
        _obj("LINK2345", itemType="attachment", parentItem="ABCD2345", linkMode="linked_file",
             contentType="application/pdf", path="/home/jane/x.pdf"),
        _obj("GONE2345", itemType="book", title="In the trash", deleted=1),
    ]  # fmt: skip
    read = web_items(objects, library="user")
    (item,) = read.items
    assert item.date_modified == "2023-02-26 08:49:43" and item.version == 7
    assert "abstractNote" not in item.fields and item.tags == ("a", "rct")
    assert item.collections == ("COLL2345",) and read.collection_items == {
        "COLL2345": ("ABCD2345",)
    }
    assert [n.key for n in item.notes] == ["NOTE2345"]
    assert [(a.key, a.link_mode, a.path) for a in item.attachments] == [
        ("ATTC2345", 1, "storage:x.pdf"), ("LINK2345", 2, "/home/jane/x.pdf"),
    ]  # fmt: skip
    paper = item_paper_fields(item)
    assert paper["authors"] == ["Smith, Jane"] and paper["doi"] == "10.1000/x"
    assert paper["pmid"] == "123" and paper["journal"] == "BMJ" and paper["year"] == 2021
    assert read.files["ATTC2345"] == ("abc", "x.pdf")


def test_hostile_keys_are_no_keys() -> None:
    objects = [
        _obj("../../etc", itemType="journalArticle", title="escape"),
        _obj("OKAY2345", itemType="journalArticle", title="fine", collections=["a/b", "C2345678"]),
        _obj("ATTC2345", itemType="attachment", parentItem="../x", linkMode="imported_file"),
        "not an object",
    ]
    read = web_items(objects, library="user")
    assert [i.key for i in read.items] == ["OKAY2345"] and read.skipped == 3
    assert read.items[0].collections == ("C2345678",)
    colls = web_collections([_obj("C2345678", name="Sub", parentCollection="../up"),
                             _obj("P2345678", name="Top", parentCollection=False)])  # fmt: skip
    assert [(c.name, c.parent_key) for c in colls] == [("Sub", None), ("Top", None)]
