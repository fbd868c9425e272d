"""Paper records scoped to their owners (issue 29) on a real team server, SQLite and
PostgreSQL: ana and bob import the same identifiers through files and a Study ZIP; each
gets records of its own that the other's imports never fill in, reveal, block or name —
not in "papers created", a lookup by DOI or PMID, a paper page, a conflict message, the
saved list or an export — while a Study shared with bob shows him its papers."""

from __future__ import annotations

import httpx
from tests.faces.web._team import TeamServer
from tests.faces.web.test_team_auth import server, team_settings

__all__ = ["server", "team_settings"]

SECRET_TITLE = "Ana's confidential trial of zebrafinch sleep"
SECRET_ABSTRACT = "Unpublished zebrafinch findings known only to ana."
DOI = "10.5555/owners.1"  # ana's, then a stub of bob's
ONLY_ANA_DOI = "10.5555/owners.2"
PLANTED_DOI = "10.5555/owners.3"  # bob plants it with a conflicting PMID first


def _ris(*records: dict[str, str]) -> bytes:
    out = []
    for rec in records:
        lines = ["TY  - JOUR"]
        for tag, value in rec.items():
            lines.append(f"{tag}  - {value}")
        lines.append("ER  - ")
        out.append("\n".join(lines))
    return ("\n\n".join(out) + "\n").encode()


def _study(c: httpx.Client, name: str) -> str:
    r = c.post("/api/v1/studies", json={"name": name})
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def _import(c: httpx.Client, study: str, data: bytes) -> dict[str, object]:
    r = c.post("/api/v1/imports", params={"study": study}, files=[("files", ("r.ris", data))])
    assert r.status_code == 200, r.text
    body = r.json()
    assert not body["refused"], body
    return body


def _created(body: dict[str, object]) -> int:
    imported = body["imported"]
    assert isinstance(imported, list)
    return sum(int(i["papers_created"]) for i in imported)


def _paper(c: httpx.Client, ref: str) -> dict[str, object] | None:
    r = c.get("/api/v1/saved", params={"text": ref})
    assert r.status_code == 200, r.text
    for row in r.json()["papers"]:
        return dict(row)
    return None


def test_same_identifiers_are_separate_records(server: TeamServer) -> None:
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        a_study = _study(ana, "Ana's review")
        b_study = _study(bob, "Bob's review")
        # bob plants a record first: the DOI ana will import, with another PMID
        planted = _import(
            bob, b_study, _ris({"TI": "Planted", "DO": PLANTED_DOI, "AN": "PMID:9991"})
        )
        assert _created(planted) == 1
        first = _import(
            ana,
            a_study,
            _ris(
                {"TI": SECRET_TITLE, "AB": SECRET_ABSTRACT, "DO": DOI, "JO": "Ana Journal"},
                {"TI": "Ana only", "DO": ONLY_ANA_DOI},
                {"TI": "Ana's version", "DO": PLANTED_DOI, "AN": "PMID:5551"},
            ),
        )
        # nothing of bob's blocks, merges with or is named in ana's import
        assert _created(first) == 3, first
        assert "9991" not in str(first) and "Planted" not in str(first)

        # bob imports a stub with ana's DOI: a new record of his, nothing of ana's shown
        stub = _import(bob, b_study, _ris({"TI": "Stub", "DO": DOI, "PY": "2020"}))
        assert _created(stub) == 1, stub
        answers = [str(stub)]
        for url in (
            "/api/v1/saved",
            f"/api/v1/studies/{b_study}",
            "/api/v1/saved/export?format=ris",
            "/api/v1/saved/export?format=csv",
            f"/api/v1/studies/{b_study}/export",
        ):
            r = bob.get(url)
            assert r.status_code == 200, (url, r.text[:300])
            answers.append(r.content.decode("utf-8", "replace"))
        for text in answers:
            assert SECRET_TITLE not in text and SECRET_ABSTRACT not in text
            assert "Ana Journal" not in text and "Ana only" not in text
            assert "Ana's version" not in text
        stub_row = _paper(bob, "Stub")
        assert stub_row is not None
        stub_id = str(stub_row["id"])
        # lookups by identifier or id name bob's own record, never ana's
        for ref in (stub_id, f"doi:{DOI}"):
            page = bob.get(f"/paper/{ref}")
            assert SECRET_TITLE not in page.text and SECRET_ABSTRACT not in page.text
        # ana's only DOI is nothing bob can open from the store (a lookup may still try
        # the providers: nothing of ana's comes back either way)
        ana_only = _paper(ana, "Ana only")
        assert ana_only is not None
        r = bob.get(f"/api/v1/papers/{ana_only['id']}")
        assert "Ana only" not in r.text
        r = bob.post(f"/api/v1/papers/{ana_only['id']}/status", json={"status": "read"})
        assert r.status_code == 404, r.text

        # ana's record is as she imported it: bob's stub filled nothing in
        mine = _paper(ana, "confidential")
        assert mine is not None and mine["title"] == SECRET_TITLE
        assert mine.get("year") in (None, ""), mine
        r = ana.get("/api/v1/saved/export", params={"format": "ris"})
        assert "2020" not in r.text and "Stub" not in r.text and "Planted" not in r.text

        # sharing: bob, a viewer of ana's Study, sees its papers (ana's records) there
        r = ana.post(
            f"/api/v1/studies/{a_study}/members", json={"username": "bob", "role": "viewer"}
        )
        assert r.status_code == 200, r.text
        shared = bob.get(f"/api/v1/studies/{a_study}")
        assert shared.status_code == 200 and SECRET_TITLE in shared.text
        # his own record of the same DOI stays his own on his paper page
        page = bob.get(f"/paper/{stub_id}")
        assert page.status_code == 200 and "Stub" in page.text


def test_searches_and_study_zips_make_the_callers_records(server: TeamServer) -> None:
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        found = ana.get("/api/v1/search", params={"q": "tumour growth"}).json()
        ids = [card["paper"]["id"] for card in found["cards"][:3]]
        r = ana.post(
            "/api/v1/selection/save", json={"run_id": found["run"]["id"], "paper_ids": ids}
        )
        assert r.status_code == 200 and r.json()["created"] == 3, r.text
        ana.post(f"/api/v1/papers/{ids[0]}/status", json={"status": "read"}).raise_for_status()
        # bob saving the same hits: three records of his own ("created" says nothing of ana)
        seen = bob.get("/api/v1/search", params={"q": "tumour growth"}).json()
        r = bob.post("/api/v1/selection/save", json={"run_id": seen["run"]["id"], "paper_ids": ids})
        assert r.status_code == 200 and r.json()["created"] == 3, r.text
        b_study = _study(bob, "Bob's ZIP")
        _import(bob, b_study, _ris({"TI": "Bob's zip title", "DO": DOI}))
        exported = bob.get(f"/api/v1/studies/{b_study}/export")
        assert exported.status_code == 200
        a_study = _study(ana, "Ana's ZIP")
        _import(ana, a_study, _ris({"TI": SECRET_TITLE, "DO": DOI, "AB": SECRET_ABSTRACT}))
        # bob recovers his ZIP (it carries ana's DOI): his records, nothing of ana's
        r = bob.post(
            "/api/v1/study-imports",
            files={"file": ("s.zip", exported.content, "application/zip")},
            data={"name": "Recovered"},
        )
        assert r.status_code == 200, r.text
        assert SECRET_TITLE not in r.text
        view = bob.get(f"/api/v1/studies/{r.json()['study_id']}")
        assert "Bob's zip title" in view.text and SECRET_TITLE not in view.text
        # ana's records are as she left them: her status, her title
        row = ana.get(f"/api/v1/papers/{ids[0]}").json()
        assert row["status"] == "read", row
        mine = _paper(ana, "confidential")
        assert mine is not None and mine["title"] == SECRET_TITLE
        theirs = bob.get(f"/api/v1/papers/{ids[0]}").json()
        assert theirs.get("status") in (None, ""), theirs
