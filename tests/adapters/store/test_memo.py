"""Stored papers, Study records and import traces read once per stored text
(``adapters/store/_memo``): the memo answers what reading the text again would answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from litdesk.adapters.store import _memo, clear_memo, memoised, stored_record_paper
from litdesk.adapters.store._engine import StoredDataInvalid, dump_json
from litdesk.core.records import PaperError, make_paper, read_paper


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_memo()


def _text(**fields: Any) -> str:
    return dump_json(make_paper(title="A trial", **fields).to_dict())


def test_a_stored_paper_is_validated_once_per_text() -> None:
    text = _text(doi="10.1000/a")
    first = _memo.stored_paper(text)
    assert first == read_paper(json.loads(text))
    assert _memo.stored_paper("".join(text)) is first  # an equal text read again
    changed = _memo.stored_paper(_text(doi="10.1000/a", year=2001))
    assert changed.year == 2001 and changed is not first


def test_invalid_stored_text_raises_at_every_read() -> None:
    bad = dump_json({"id": "REC-A", "year": "soon"})
    for _ in range(2):
        with pytest.raises(PaperError):
            _memo.stored_paper(bad)
        with pytest.raises(StoredDataInvalid):
            _memo.stored_paper("{not json")
    assert not _memo._MEMO.papers


def test_a_record_row_gets_its_own_document_and_its_paper_once() -> None:
    text = dump_json({"paper": json.loads(_text(pmid="42")), "label": "a.ris (ris)"})
    a, b = _memo.stored_record(text), _memo.stored_record(text)
    assert a == b and a is not b  # each row its own copy: a change stays in that row
    a["label"] = "changed"
    assert _memo.stored_record(text)["label"] == "a.ris (ris)"
    assert stored_record_paper(a["paper"]) is stored_record_paper(b["paper"])
    assert stored_record_paper(a["paper"]).pmid == "42"


def test_a_paper_not_read_from_a_stored_record_is_validated_every_time() -> None:
    data = json.loads(_text(pmid="7"))
    first = stored_record_paper(data)
    assert first == read_paper(data)
    assert stored_record_paper(data) is not first
    with pytest.raises(PaperError):
        stored_record_paper({"id": "REC-A", "year": "soon"})


def test_past_its_budget_the_memo_starts_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_memo, "BUDGET", 3_000)
    texts = [_text(pmid=str(n), abstract="x" * 500) for n in range(1, 10)]
    for text in texts:
        _memo.stored_paper(text)
    assert 0 < len(_memo._MEMO.papers) < len(texts)
    assert _memo._MEMO.size <= 3_000
    # what it forgot is read again, the same
    assert _memo.stored_paper(texts[0]) == read_paper(json.loads(texts[0]))


def test_memoised_reads_each_text_once_and_never_keeps_a_failure() -> None:
    calls: list[str] = []

    def read(text: str) -> tuple[int, ...]:
        calls.append(text)
        if text == "bad":
            raise ValueError(text)
        return tuple(map(int, text.split(",")))

    assert memoised("kind", "1,2", read) == (1, 2)
    assert memoised("kind", "1,2", read) == (1, 2)
    assert memoised("other kind", "1,2", read) == (1, 2)
    for _ in range(2):
        with pytest.raises(ValueError):
            memoised("kind", "bad", read)
    assert calls == ["1,2", "1,2", "bad", "bad"]
