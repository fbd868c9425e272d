"""Authors on the web pages (one byline helper, ``litdesk.core.words.authors_line``): a
"Family, Given" name reads given name first, so a reader sees where each name ends
("Aurelio Vega, Miguel Angel Martin-Ferrero", not "Vega, Aurelio, Martin-Ferrero, Miguel
Angel"); a name that keeps a comma makes the byline join with "; ". Checked on the helper
and over HTTP on the pages that list authors: the paper (reader), saved papers, the Study's
working set and the screening card (the page and the JSON its script shows)."""

from __future__ import annotations

import html

import pytest
from tests.faces.web._server import Running

from litdesk.core.words import author_name, authors_line

RIS = """TY  - JOUR
TI  - Treatment of knee osteoarthritis with allogeneic bone marrow mesenchymal stem cells
AU  - Vega, Aurelio
AU  - Martín-Ferrero, Miguel Angel
AU  - Del Canto, Francisco
AU  - King, Martin L., Jr.
PY  - 2015
DO  - 10.1097/TP.0000000000000678
ER  -
"""
BYLINE = "Aurelio Vega, Miguel Angel Martín-Ferrero, Francisco Del Canto, Martin L. King Jr."


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Vega, Aurelio", "Aurelio Vega"),
        ("  Vega,   Aurelio ", "Aurelio Vega"),
        ("van der Berg, Jan", "Jan van der Berg"),
        ("King, Martin L., Jr.", "Martin L. King Jr."),
        ("Vega A", "Vega A"),  # MEDLINE's: as it is
        ("Aurelio Vega", "Aurelio Vega"),
        ("World Health Organization", "World Health Organization"),
        # no person's name: kept as written (then the byline joins with "; ")
        ("Group 2, Trial Investigators", "Group 2, Trial Investigators"),
        ("Dept of Surgery, University Hospital of Western Norway, Bergen", None),
    ],
)
def test_author_name(name: str, shown: str | None) -> None:
    assert author_name(name) == (shown or " ".join(name.split()))


def test_authors_line() -> None:
    assert authors_line(["Vega, Aurelio", "Martin-Ferrero, Miguel Angel"]) == (
        "Aurelio Vega, Miguel Angel Martin-Ferrero"
    )
    assert authors_line(["A, B", "C, D", "E, F"], 2) == "B A, D C and 1 more"
    assert authors_line(["Vega, Aurelio", "Group 2, Trial Investigators"]) == (
        "Aurelio Vega; Group 2, Trial Investigators"
    )
    assert authors_line([]) == "" and authors_line(None) == ""


def test_pages_show_each_name_given_name_first(running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Bylines"}).json()["id"]
        files = [("files", ("refs.ris", RIS.encode(), "application/octet-stream"))]
        r = c.post("/api/v1/imports", params={"study": sid}, files=files)
        assert r.status_code == 200, r.text
        saved = c.get("/api/v1/saved").json()
        pid = next(p["id"] for p in saved["papers"] if p["title"].startswith("Treatment"))
        pages = {
            "paper": c.get(f"/paper/{pid}").text,
            "saved": c.get("/saved").text,
            "working set": c.get(f"/study/{sid}/working-set").text,
            "screening": c.get(f"/study/{sid}/screen").text,
        }
        card = c.get(f"/api/v1/studies/{sid}/screening/next").json()
    for name, text in pages.items():
        shown = html.unescape(text)
        assert "Vega, Aurelio" not in shown, name
        # the saved list and the working set show their first names only
        first = BYLINE if name in ("paper", "screening") else "Aurelio Vega, Miguel Angel"
        assert first in shown, name
    assert card["byline"] == BYLINE  # what the screening script shows for the next card
    assert card["authors"][0] == "Vega, Aurelio"  # the record itself is not changed
