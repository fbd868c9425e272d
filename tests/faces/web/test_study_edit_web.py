"""Work in a Study's context and its edit, delete, trash, undo and history over HTTP (issue
27): the reader carries the Study it was opened from, highlights and comments made there
count on the Study's page, and each deletion is undone from the trash (JSON API and the
pages' forms, without JavaScript)."""

from __future__ import annotations

import re

from tests.faces.web._server import Running


def _study_with_paper(c) -> tuple[str, str]:
    study = c.post("/api/v1/studies", json={"name": "Tumour <i>review</i>"}).json()
    data = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
    paper = data["cards"][0]["paper"]["id"]
    saved = c.post(
        "/api/v1/selection/save",
        json={"run_id": data["run"]["id"], "paper_ids": [paper], "study": study["id"]},
    )
    assert saved.status_code == 200, saved.text
    return study["id"], paper


def _counts(c, sid: str) -> tuple[int, int, int]:
    s = c.get(f"/api/v1/studies/{sid}").json()
    return len(s["papers"]), s["notes"], s["evidence"]


def test_work_in_a_study_deleted_and_restored(running: Running) -> None:
    with running.writer() as c:
        sid, paper = _study_with_paper(c)
        r = c.post(
            f"/api/v1/papers/{paper}/comments", json={"comment": "in the Study", "study": sid}
        )
        assert r.status_code == 200, r.text
        r = c.post(
            f"/api/v1/papers/{paper}/highlights", json={"text": "tumour growth", "study": sid}
        )
        assert r.status_code == 200, r.text
        c.post(f"/api/v1/papers/{paper}/comments", json={"comment": "of no Study"})
        assert _counts(c, sid) == (1, 2, 0)
        notes = {n["comment"] or n["kind"]: n for n in r.json()["notes"]}
        highlight = next(n for n in r.json()["notes"] if n["kind"] == "highlight")
        assert highlight["study_id"] == sid and notes["in the Study"]["study_id"] == sid
        book = c.get("/api/v1/notebook", params={"study": sid}).json()
        assert book["total"] == 2  # the Study's notebook holds both (not the loose comment)
        with_zip = c.get(f"/api/v1/studies/{sid}/export")
        assert with_zip.status_code == 200
        import io
        import zipfile

        notebook = zipfile.ZipFile(io.BytesIO(with_zip.content)).read("notebook.md").decode()
        assert "in the Study" in notebook and "of no Study" not in notebook

        # the reader knows the Study it came from, and says so; notes name their Study
        study_page = c.get(f"/study/{sid}").text
        assert f"/paper/{paper}?study={sid}" in study_page
        reader = c.get(f"/paper/{paper}", params={"study": sid}).text
        assert (
            "Tumour &lt;i&gt;review&lt;/i&gt;" in reader and 'name="study" value="' + sid in reader
        )
        assert "in Tumour &lt;i&gt;review&lt;/i&gt;" in reader and "no Study" in reader

        # edit a comment, delete the highlight, restore it (JSON API)
        r = c.post(f"/api/v1/notes/{notes['in the Study']['id']}/edit", json={"comment": "changed"})
        assert r.status_code == 200 and r.json()["comment"] == "changed", r.text
        gone = c.post(f"/api/v1/notes/{highlight['id']}/delete")
        assert gone.status_code == 200, gone.text
        assert _counts(c, sid) == (1, 1, 0)
        trash = c.get(f"/api/v1/studies/{sid}/trash").json()
        assert [i["kind"] for i in trash["items"]] == ["highlight"]
        assert c.post(f"/api/v1/trash/{gone.json()['trash_id']}/restore").status_code == 200
        assert _counts(c, sid) == (1, 2, 0)

        # the forms: delete lands on the trash with its Undo; undo restores
        r = c.post(f"/note/{highlight['id']}/delete", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith(f"/study/{sid}/trash")
        page = c.get(r.headers["location"]).text
        assert "Deleted: Highlight on" in page and "Undo" in page
        item = re.search(r'action="/trash/([^"/]+)/restore"', page)
        assert item
        r = c.post(f"/trash/{item.group(1)}/restore", follow_redirects=False)
        assert r.status_code == 303 and _counts(c, sid) == (1, 2, 0)

        # a paper leaves the Study with its work; the Study is deleted after a confirm page
        r = c.post(f"/api/v1/studies/{sid}/papers/{paper}/remove")
        assert r.status_code == 200 and _counts(c, sid) == (0, 0, 0), r.text
        c.post(f"/api/v1/trash/{r.json()['trash_id']}/restore").raise_for_status()
        assert _counts(c, sid) == (1, 2, 0)
        confirm = c.get(f"/study/{sid}/delete")
        assert confirm.status_code == 200 and "Delete the Study" in confirm.text
        r = c.post(f"/study/{sid}/delete", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/trash")
        assert c.get(f"/api/v1/studies/{sid}").status_code == 404
        assert [i["kind"] for i in c.get("/api/v1/trash").json()["items"]] == ["study"]
        refused = c.post("/api/v1/trash/empty", json={})  # not confirmed
        assert refused.status_code == 400 and refused.json()["code"] == "confirm", refused.text
        item_id = c.get("/api/v1/trash").json()["items"][0]["id"]
        c.post(f"/api/v1/trash/{item_id}/restore").raise_for_status()
        history = c.get(f"/api/v1/studies/{sid}/history").json()
        actions = [r["action"] for r in history["entries"]]
        for a in (
            "highlight_deleted",
            "highlight_restored",
            "comment_edited",
            "paper_removed",
            "study_deleted",
            "study_restored",
        ):
            assert a in actions
        history_page = c.get(f"/study/{sid}/history").text
        assert "Deleted a highlight" in history_page  # in words
        # one person works here: no Who column, no "local" (a team server names them)
        assert '<th scope="col">Who</th>' not in history_page
        assert 'data-label="Who"' not in history_page and ">local<" not in history_page


def test_a_search_run_removed_from_a_study_and_restored(running: Running) -> None:
    """The Study page's "Remove search" (its JSON twin): the run's records and the papers
    only it brought leave the Study into its trash; the trash's Restore brings them back."""
    with running.writer() as c:
        sid, paper = _study_with_paper(c)
        run_id = c.get("/api/v1/search", params={"q": "tumour growth"}).json()["run"]["id"]
        c.post(f"/api/v1/runs/{run_id}/save", json={"study": sid}).raise_for_status()
        study = c.get(f"/api/v1/studies/{sid}").json()
        assert study["search_runs"] == [run_id]
        kept = study["papers_total"]  # the kept run's hits are the Study's papers
        assert kept > 1
        page = c.get(f"/study/{sid}").text
        assert (
            f'action="/study/{sid}/runs/{run_id}/remove"' in page and "Remove this search" in page
        )
        before = study["working_set"]["records_identified"]
        assert before >= 1
        r = c.post(f"/api/v1/studies/{sid}/runs/{run_id}/remove")
        assert r.status_code == 200, r.text
        assert r.json()["kind"] == "run" and r.json()["count"] == kept  # the papers it brought
        after = c.get(f"/api/v1/studies/{sid}").json()
        assert after["search_runs"] == [] and after["papers"] == []
        assert after["working_set"]["records_identified"] == 0
        missing = c.post(f"/api/v1/studies/{sid}/runs/{run_id}/remove")
        assert missing.status_code == 404
        r = c.post(f"/trash/{r.json()['trash_id']}/restore", follow_redirects=False)
        assert r.status_code == 303
        back = c.get(f"/api/v1/studies/{sid}").json()
        assert back["search_runs"] == [run_id] and len(back["papers"]) == kept
        assert back["working_set"]["records_identified"] == before
        assert paper in {p["id"] for p in back["papers"]}


def test_an_empty_trash_says_so_once_and_has_nothing_to_empty(running: Running) -> None:
    """An empty trash says so once (no "0 items"); "Empty the trash" reached by its address
    answers that there is nothing to empty: no button, no error, nothing recorded."""
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Empty-trash review"}).json()["id"]
        for trash_page in (f"/study/{sid}/trash", "/trash"):
            text = c.get(trash_page).text
            assert text.count("The trash is empty.") == 1, trash_page
            assert "0 items" not in text and "Empty the trash…" not in text
        for confirm in (f"/study/{sid}/trash/empty", "/trash/empty"):
            r = c.get(confirm)
            assert r.status_code == 200, r.text
            assert "The trash is empty: there is nothing to empty." in r.text
            assert 'id="confirm-action"' not in r.text and "Back to the trash" in r.text
            assert "Delete the 0 items" not in r.text
        for api in (f"/api/v1/studies/{sid}/trash/empty", "/api/v1/trash/empty"):
            r = c.post(api, json={})  # nothing to confirm: answered, not refused
            assert r.status_code == 200 and r.json()["count"] == 0, r.text
        r = c.post(f"/study/{sid}/trash/empty", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/study/{sid}/trash"
        actions = [e["action"] for e in c.get(f"/api/v1/studies/{sid}/history").json()["entries"]]
        assert "trash_emptied" not in actions
        # with an item in it, emptying still asks first
        c.post(f"/api/v1/studies/{sid}/delete").raise_for_status()
        refused = c.post("/api/v1/trash/empty", json={})
        assert refused.status_code == 400 and refused.json()["code"] == "confirm", refused.text
        assert "Delete the 1 item in your trash" in c.get("/trash/empty").text
