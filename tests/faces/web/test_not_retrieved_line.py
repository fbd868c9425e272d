"""The reports recorded not retrieved are named where the full-text counts are (issue 28).

The Study page said "100 of 128 screened, 74 included, 26 excluded" at full text and the
screening page "100 of 128 screened, 74 included", while 3 of the 28 left were recorded not
retrieved: the queue passes over them (it ends with 125 of 128), and PRISMA 2020 says 25
awaiting assessment and 3 not retrieved. Only the progress page told the two apart."""

from __future__ import annotations

from tests.faces.web._server import Running
from tests.faces.web.test_screening_web import make_screening_study


def _api(sid: str) -> str:
    return f"/api/v1/studies/{sid}/screening"


def test_the_full_text_counts_name_the_reports_not_retrieved(running: Running) -> None:
    with running.writer() as c:
        sid = make_screening_study(c)
        keys = []
        for _ in range(3):
            card = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()
            keys.append(card["record_key"])
            c.post(
                f"{_api(sid)}/decisions",
                json={
                    "stage": "title_abstract",
                    "record_key": card["record_key"],
                    "verdict": "include",
                },
            ).raise_for_status()
        study = c.get(f"/study/{sid}").text
        counts = study.split('id="screen-counts-full_text"', 1)[1].split("</span>", 1)[0]
        assert "0 of 3 screened" in counts and "not retrieved" not in counts
        c.post(
            f"{_api(sid)}/retrieval",
            json={"record_key": keys[1], "retrieved": False, "note": "no access"},
        ).raise_for_status()
        study = c.get(f"/study/{sid}").text
        counts = study.split('id="screen-counts-full_text"', 1)[1].split("</span>", 1)[0]
        assert "0 of 3 screened" in counts
        assert "1 recorded not retrieved" in counts, counts
        assert f"/study/{sid}/prisma-2020/records?box=not_retrieved" in counts  # the list behind it
        # title and abstract have no such reports: nothing said there
        ta = study.split('id="screen-counts-title_abstract"', 1)[1].split("</span>", 1)[0]
        assert "not retrieved" not in ta
        page = c.get(f"/study/{sid}/screen", params={"stage": "full_text"}).text
        line = page.split('id="progress-line"', 1)[1].split("</span>\n", 1)[0]
        assert "1 recorded not retrieved" in line, line


def test_the_end_of_the_queue_says_the_reports_left_are_not_retrieved(running: Running) -> None:
    """With every report decided but one recorded not retrieved, the page said "Every record
    you have not decided already has its decision: none is waiting for you" — a single
    reviewer's Study, where no record has anyone else's decision."""
    with running.writer() as c:
        sid = make_screening_study(c)
        keys = []
        for _ in range(2):
            card = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()
            keys.append(card["record_key"])
            c.post(
                f"{_api(sid)}/decisions",
                json={
                    "stage": "title_abstract",
                    "record_key": card["record_key"],
                    "verdict": "include",
                },
            ).raise_for_status()
        c.post(
            f"{_api(sid)}/retrieval", json={"record_key": keys[0], "retrieved": False}
        ).raise_for_status()
        c.post(
            f"{_api(sid)}/decisions",
            json={"stage": "full_text", "record_key": keys[1], "verdict": "include"},
        ).raise_for_status()
        page = c.get(f"/study/{sid}/screen", params={"stage": "full_text"}).text
        assert 'id="screen-done"' in page
        why = page.split('id="done-why"', 1)[1].split("</p>", 1)[0]
        assert "already has its" not in why, why
        assert "recorded as not retrieved" in why, why
