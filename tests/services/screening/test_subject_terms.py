"""Subject terms of imported records (RIS KW, MEDLINE MH/OT, a CSV keywords column) reach
the screening card and the model's features (issue 28: "text features of title, abstract,
keywords/MeSH where present")."""

from __future__ import annotations

from pathlib import Path

from tests.services.screening._study import make_study

from litdesk.services.app import App
from litdesk.services.screening import CardRequest, ItemsRequest
from litdesk.services.screening._retrain import screening_record

RIS = (
    "TY  - JOUR\nTI  - Exercise training in chronic heart failure\nPY  - 2019\n"
    "KW  - exercise therapy\nKW  - heart failure\nDO  - 10.5555/kw.1\nER  - \n"
)
MEDLINE = (
    "PMID- 31000001\nTI  - Beta blockers after myocardial infarction\nDP  - 2018\n"
    "AB  - A trial of beta blockers.\nMH  - Adrenergic beta-Antagonists/therapeutic use\n"
    "MH  - *Myocardial Infarction\nOT  - secondary prevention\n"
)
CSV = (
    "Title,Year,DOI,Author Keywords,Index Keywords,mesh_terms\n"
    "Diet and blood pressure in adults,2020,10.5555/kw.3,sodium; hypertension,"
    "Blood Pressure; sodium,Humans; Hypertension/diet therapy\n"
)


def test_subject_terms_reach_the_card_and_the_features(app: App, tmp_path: Path) -> None:
    files = []
    for name, text in (("a.ris", RIS), ("b.nbib", MEDLINE), ("c.csv", CSV)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        files.append(path)
    sid = make_study(app, "Subject terms", files)
    rows = app.screening.items(ItemsRequest(sid, "title_abstract"), owner=app.owner).rows
    by_title = {str(r["title"])[:10]: str(r["record_key"]) for r in rows}
    expected = {
        "Exercise t": {"exercise therapy", "heart failure"},
        "Beta block": {"secondary prevention", "Myocardial Infarction"},
        "Diet and b": {"sodium", "hypertension", "Blood Pressure", "Humans"},
    }
    assert set(by_title) == set(expected)
    screen = app.screening.cache.screen_set(sid)
    index = {g.key: i for i, g in enumerate(screen.groups)}
    for start, terms in expected.items():
        key = by_title[start]
        card = app.screening.card(CardRequest(sid, "title_abstract", key), owner=app.owner)
        shown = {t.lstrip("*").split("/")[0] for t in card.keywords}
        assert terms <= shown, (start, card.keywords)
        read = screening_record(screen, index[key]).terms  # what the model reads
        assert terms <= {t.lstrip("*").split("/")[0] for t in read}, (start, read)
    diet = app.screening.card(CardRequest(sid, "title_abstract", by_title["Diet and b"]),
                              owner=app.owner).keywords  # fmt: skip
    assert len({t.casefold() for t in diet}) == len(diet)  # "sodium" once
