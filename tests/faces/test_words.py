"""Words for people: dates, numbers, plurals and lane names (litdesk.faces._words)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from litdesk.faces._words import dates, day, lane_label, num, plural, when


def test_dates_read_like_a_person_writes_them() -> None:
    now = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    assert when("2026-12-05T11:56:59.123456+00:00", now=now) == "3 minutes ago"
    assert when(now - timedelta(seconds=5), now=now) == "just now"
    assert when(now - timedelta(hours=1), now=now) == "1 hour ago"
    old = when("2026-11-02T08:05:00Z", now=now, relative=False)
    assert old.startswith("2 Nov 2026, ") and "." not in old  # no microseconds, no T
    assert day("2026-12-05") == "5 Dec 2026"
    assert when("2026-12-05") == "5 Dec 2026"
    assert when("not a date") == "not a date" and when(None) == ""


def test_a_reports_dates_carry_the_time_only_where_a_day_has_two_moments() -> None:
    """``dates``: never relative, never ISO; the time only where two different moments of
    the list share a (local) day; one moment given twice (a run's lanes) is one."""
    a, b = "2026-11-30T10:00:00+00:00", "2026-11-30T10:20:00+00:00"
    same_day = day(a) == day(b)  # in any time zone but one with a day boundary between
    shown = dates([a, a, b, "2026-12-05", "not a date", None])
    assert shown[3:] == ["5 Dec 2026", "not a date", ""]
    if same_day:
        assert shown[0] == shown[1] == when(a, relative=False) != day(a)
        assert shown[2] == when(b, relative=False) and shown[0] != shown[2]
    assert dates([a, a]) == [day(a), day(a)]  # one moment on its day: the date alone
    assert all("T" not in d and "ago" not in d for d in shown)


def test_numbers_and_plurals_agree() -> None:
    assert num(1234567) == "1,234,567" and num(0.7333) == "0.73" and num(None) == ""
    assert plural(1, "saved search") == "1 saved search"
    assert plural(2, "saved search") == "2 saved searches"
    assert plural(0, "study", "studies") == "0 studies"
    assert plural(1204, "record") == "1,204 records"
    assert plural(3, "summary") == "3 summaries"


def test_lanes_are_named_by_database_and_kind() -> None:
    assert lane_label("europepmc-keyword") == "Europe PMC, keyword search"
    assert lane_label("openalex-semantic") == "OpenAlex, meaning search"
    assert lane_label("pubmed-lookup") == "PubMed, look-up by identifier"
    assert lane_label("some-future-lane") == "some-future-lane"
    # a trace attempt refused before any request carries the bare provider (the CLI's
    # trace said "crossref unsupported" between "Europe PMC, keyword search ok" lines)
    assert lane_label("crossref") == "Crossref" and lane_label("semanticscholar") == (
        "Semantic Scholar"
    )


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_num_round_trips(n: int) -> None:
    assert int(num(n).replace(",", "")) == n


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)))
def test_when_never_shows_iso(moment: datetime) -> None:
    text = when(moment.replace(tzinfo=UTC), relative=False)
    assert "T" not in text and "+" not in text and len(text) <= 20


#: "(s)" where it is no count said to a person: a prompt to the model, a docstring and the
#: column names of other tools' exports (Scopus's "Author(s) ID")
_NOT_FOR_PEOPLE = {
    ("core/library/_gate.py", "cite the excerpt(s) it"),
    ("core/dedup/_shared.py", "value(s) most members share"),
    ("adapters/formats/_csvtable.py", '"author(s)"'),
    ("adapters/formats/_csvtable.py", '"author(s) id"'),
}


def test_words_for_people_agree_in_number_never_file_s() -> None:
    """No "1 file(s) not indexed yet": every count said to a person goes through
    ``plural`` (Python) or dom.js's ``plural`` (the pages' scripts)."""
    import io
    import tokenize
    from pathlib import Path

    import litdesk

    root = Path(litdesk.__file__).parent
    found: list[str] = []
    either = re.compile(r"\w\((?:s|es)\)|\}\((?:s|es)\)")
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline):
            known = any(rel == f and part in tok.string for f, part in _NOT_FOR_PEOPLE)
            if tok.type == tokenize.STRING and either.search(tok.string) and not known:
                found.append(f"{rel}:{tok.start[0]}: {tok.string[:80]}")
    in_text = {  # a template's text; a script's string literals (not its calls, add(s))
        ".html": re.compile(r"[A-Za-z}]\((?:s|es)\)"),
        ".js": re.compile(r"([\"`'])(?:(?!\1).)*[A-Za-z}]\((?:s|es)\)(?:(?!\1).)*\1"),
    }
    for path in sorted((root / "faces" / "web").rglob("*")):
        if path.suffix in in_text:
            for n, text in enumerate(path.read_text("utf-8").splitlines(), 1):
                if in_text[path.suffix].search(text):
                    found.append(f"{path.relative_to(root).as_posix()}:{n}: {text.strip()[:80]}")
    assert found == []
