"""Decisions read from other tools' files: plain CSV, ASReview's exported dataset, Rayyan's
export; typed errors with line numbers, limits, linear time; any text parses or fails with a
DecisionsFileError (Hypothesis)."""

from __future__ import annotations

import csv
import io
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.screening import (
    DecisionsFileError,
    RayyanNotesError,
    _exchange,
    parse_decisions,
    parse_rayyan_notes,
    parse_verdict,
)


def test_plain_csv_with_identifiers_reasons_and_notes():
    text = (
        "Record ID,DOI,PMID,Title,Decision,Reason,Note\n"
        "r1,,,,Include,,fits\n"
        ",https://doi.org/10.1000/ABC.1,,,exclude,wrong population,\n"
        ",,PMID: 00123,,maybe,,\n"
        ",,,The Effect of Things,1,,\n"
        ",,,Unrated,,,\n"
    )
    got = parse_decisions(text)
    assert got.format == "csv"
    assert [d.identifiers[0] for d in got.decisions] == [
        ("id", "r1"),
        ("doi", "10.1000/abc.1"),
        ("pmid", "123"),
        ("title", "the effect of things"),
    ]
    assert [d.verdict for d in got.decisions] == ["include", "exclude", "maybe", "include"]
    assert got.decisions[0].note == "fits"
    assert got.decisions[1].reason == "wrong population"
    assert got.skipped == (6,)
    assert got.decisions[1].line == 3


def test_semicolon_and_tab_delimiters_and_bom():
    for sep in (";", "\t"):
        text = "\ufeff" + sep.join(["doi", "label"]) + "\n10.1000/x" + sep + "0\n"
        got = parse_decisions(text)
        assert got.decisions[0].verdict == "exclude"
        assert got.decisions[0].identifiers == (("doi", "10.1000/x"),)


def test_asreview_export_reads_included_and_ignores_its_own_record_id():
    text = (
        "record_id,title,abstract,doi,included,asreview_ranking\n"
        "0,First,abs,10.5555/a,1,1\n"
        "1,Second,abs,,0,2\n"
        "2,Third,abs,,,3\n"
        "3,Fourth,abs,,-1,4\n"
    )
    got = parse_decisions(text)
    assert got.format == "asreview"
    assert [d.verdict for d in got.decisions] == ["include", "exclude"]
    assert got.decisions[0].identifiers == (("doi", "10.5555/a"), ("title", "first"))
    assert all(k != "id" for d in got.decisions for k, _ in d.identifiers)
    assert got.skipped == (4, 5)


def test_asreview_2_export_asreview_label_primary_title_and_cr_line_ends():
    # ASReview 2.x writes its label as asreview_label (its readers also take included,
    # label, final_included, ...); the title may be primary_title; a file saved with CR line
    # ends. Before: "no decision column", and the delimiter was counted over the whole file
    # (its first "line"), so semicolons in titles and abstracts could win over the commas
    text = (
        "record_id,primary_title,notes_abstract,doi,asreview_label,asreview_time\r"
        "0,First; a; b; c,abs; x; y; z; w; v,10.5555/a,1,2024-01-01 10:00:00\r"
        "1,Second,abs,,0,2024-01-01 10:01:00\r"
        "2,Third,abs,,,\r"
    )
    got = parse_decisions(text)
    assert got.format == "asreview"
    assert [d.verdict for d in got.decisions] == ["include", "exclude"]
    assert got.decisions[0].identifiers == (("doi", "10.5555/a"), ("title", "first a b c"))
    assert got.skipped == (4,)
    for name in ("final_included", "label_included", "included_flag"):
        head = "record_id,title," + name + ",asreview_time\r"
        other = parse_decisions(head + "0,Only,1,x\r", format="asreview")
        assert [d.verdict for d in other.decisions] == ["include"]


def test_rayyan_export_gives_one_decision_per_reviewer_with_reasons():
    rows = [
        ["key", "title", "doi", "notes"],
        ["1", "Alpha trial", "10.9999/alpha",
         'RAYYAN-INCLUSION: {"Ann"=>"Included", "Bob"=>"Excluded"} | '
         "RAYYAN-EXCLUSION-REASONS: wrong population,wrong outcome"],
        ["2", "Beta trial", "", 'RAYYAN-INCLUSION: {"Ann"=>"Maybe"} | RAYYAN-LABELS: x'],
        ["3", "Gamma", "", "a note without decisions"],
    ]  # fmt: skip
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    got = parse_decisions(buf.getvalue())
    assert got.format == "rayyan"
    assert [(d.reviewer, d.verdict, d.reason) for d in got.decisions] == [
        ("Ann", "include", ""),
        ("Bob", "exclude", "wrong population, wrong outcome"),
        ("Ann", "maybe", ""),
    ]
    assert got.reviewers() == ["Ann", "Bob"]
    assert got.skipped == (4,)
    assert got.decisions[0].identifiers[0] == ("doi", "10.9999/alpha")
    assert got.decisions[2].labels == ("x",) and "Rayyan labels: x" in got.decisions[2].note
    # an unknown decision is that record's problem, reported beside the others' decisions
    bad = buf.getvalue().replace('"Maybe"', '"Perhaps"').replace('""Maybe""', '""Perhaps""')
    partly = parse_decisions(bad)
    assert [(d.reviewer, d.verdict) for d in partly.decisions] == [
        ("Ann", "include"), ("Bob", "exclude"),
    ]  # fmt: skip
    ((line, why),) = partly.problems
    assert line == 3 and "'Perhaps' is not Included, Excluded or Maybe" in why


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("title,abstract\nA,B\n", "no_decision_column"),
        ("decision,abstract\ninclude,B\n", "no_identifier"),
        ("doi,decision\n10.1000/a,perhaps\n", "bad_verdict"),
        ("doi,title,decision\n,,include\n", "no_identifier"),
        ('doi,decision\n"10.1000/a,include\n', "bad_csv"),
    ],
)
def test_typed_errors_name_the_problem(text, code):
    with pytest.raises(DecisionsFileError) as err:
        parse_decisions(text)
    assert err.value.code == code


def test_error_messages_name_the_line():
    with pytest.raises(DecisionsFileError, match="line 3"):
        parse_decisions("doi,decision\n\n10.1000/b,what\n")  # no row read: the file refused


def test_a_row_that_cannot_be_read_is_listed_beside_the_others():
    """Before: one unknown word, or one row without an identifier, refused the whole file
    (its other decisions lost); now each is a problem with its line, as Rayyan's rows are.
    A file none of whose rows can be read is still refused, naming the first."""
    text = (
        "doi,title,decision\n10.1000/a,,1\n10.1000/b,,Pending\n,,include\n"
        "10.1000/c,,-1\n,Some title,Exclude\n"
    )
    got = parse_decisions(text)
    assert [(d.line, d.verdict) for d in got.decisions] == [(2, "include"), (6, "exclude")]
    assert got.skipped == (5,)
    assert got.problems == (
        (3, "decision 'Pending' is not include, exclude or maybe"),
        (4, "no record identifier"),
    )
    with pytest.raises(DecisionsFileError, match="line 2: .*and 1 other row") as err:
        parse_decisions("doi,decision\n10.1000/a,what\n10.1000/b,what\n")
    assert err.value.code == "bad_verdict"


def test_limits(monkeypatch):
    monkeypatch.setattr(_exchange, "MAX_ROWS", 3)
    with pytest.raises(DecisionsFileError) as err:
        parse_decisions("doi,decision\n" + "10.1000/a,1\n" * 4)
    assert err.value.code == "too_many_rows"
    monkeypatch.setattr(_exchange, "MAX_CELL", 10)
    with pytest.raises(DecisionsFileError) as err:
        parse_decisions("title,decision\n" + "t" * 11 + ",1\n")
    assert err.value.code == "cell_too_long"
    monkeypatch.setattr(_exchange, "MAX_BYTES", 20)
    with pytest.raises(DecisionsFileError) as err:
        parse_decisions("doi,decision\n" + "10.1000/a,1\n" * 3)
    assert err.value.code == "too_large"


def test_ris_with_asreview_labels_and_litdesk_notes():
    """ASReview's RIS labels, and litdesk's own notes read before them (maybe, the reason,
    the record key); a status that is not a verdict, and a record without labels, are
    skipped; a RIS export without any decision is Rayyan's (nobody decided yet)."""
    text = (
        "TY  - JOUR\nTI  - Alpha\nDO  - 10.1000/A\nN1  - ASReview_relevant\nER  - \n\n"
        "TY  - JOUR\nTI  - Beta\nN1  - ASReview_irrelevant\nN1  - ASReview_prior\nER  - \n"
        "TY  - JOUR\nTI  - Gamma\nN1  - ASReview_not_seen\nER  - \n"
        "TY  - JOUR\nTI  - Delta\nN1  - ASReview_irrelevant\n"
        "N1  - litdesk screening title_abstract: exclude; reason: wrong population\n"
        "N1  - litdesk record: imp-1:4\nER  - \n"
        "TY  - JOUR\nTI  - Epsilon\nN1  - ASReview_not_seen\n"
        "N1  - litdesk screening full_text: maybe\nER  - \n"
        "TY  - JOUR\nTI  - Zeta\nN1  - ASReview_not_seen\n"
        "N1  - litdesk screening title_abstract: undecided\nER  - \n"
        "TY  - JOUR\nTI  - Eta\nN1  - just a note\nER  - \n"
        "TY  - JOUR\nN1  - ASReview_relevant\nER  - \n"
        # the label inside a longer note, as ASReview reads it (its own test file has these)
        "TY  - JOUR\nTI  - Theta\nN1  - Additional notes 1. ASReview_irrelevant.\nER  - \n"
    )
    got = parse_decisions(text)
    assert got.format == "asreview"
    assert [(d.identifiers[0], d.verdict, d.reason) for d in got.decisions] == [
        (("doi", "10.1000/a"), "include", ""),
        (("title", "beta"), "exclude", ""),
        (("id", "imp-1:4"), "exclude", "wrong population"),
        (("title", "epsilon"), "maybe", ""),
        (("title", "theta"), "exclude", ""),
    ]
    assert len(got.skipped) == 3 and [why for _, why in got.problems] == [
        "no record identifier (DOI, PMID or title)"
    ]
    assert parse_decisions(text, format="asreview").decisions == got.decisions
    assert parse_decisions(text, format="rayyan").decisions == ()  # Rayyan's notes only
    plain = "TY  - JOUR\nTI  - Alpha\nN1  - a note\nER  - \n"
    assert parse_decisions(plain).format == "rayyan" and parse_decisions(plain).skipped == (1,)


def test_verdict_words():
    assert parse_verdict(" Included ") == "include"
    assert parse_verdict("NO") == "exclude"
    assert parse_verdict("?") == "maybe"
    assert parse_verdict("") is None
    assert parse_verdict("-1") is None


def _timed(text: str) -> float:
    """The parse's CPU time in this thread, best of three (wall time on a loaded machine
    measures the other processes too)."""
    best = float("inf")
    for _ in range(3):
        t = time.thread_time()
        parse_decisions(text)
        best = min(best, time.thread_time() - t)
    return best


def test_time_is_linear_in_rows_and_in_rayyan_notes():
    row = '10.1000/a,Title,"RAYYAN-INCLUSION: {""A""=>""Included""}"\n'
    small = _timed("doi,title,notes\n" + row * 2_000)
    large = _timed("doi,title,notes\n" + row * 20_000)
    assert large < 10 * small * 3 + 0.5
    # a notes cell made of many unclosed quotes and arrows stays linear
    nasty = 'RAYYAN-INCLUSION: {"' + '"=>' * 30_000
    t = time.process_time()  # CPU time: a loaded machine's waits are not the parser's
    with pytest.raises(RayyanNotesError):
        parse_rayyan_notes(nasty)
    assert time.process_time() - t < 0.5


_PIECES = [*'ab1,;\t"\n|:{}=>-?', "doi", "decision", "included", "RAYYAN-INCLUSION", "notes",
           "title", "record_id", "10.1000/x", "include", "exclude"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_any_text_parses_or_fails_with_a_typed_error(text):
    try:
        got = parse_decisions(text)
    except DecisionsFileError:
        return
    for d in got.decisions:
        assert d.verdict in ("include", "exclude", "maybe")
        assert d.identifiers


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=20).filter(lambda s: s.strip()),
            st.sampled_from(["include", "exclude", "maybe"]),
            st.text(max_size=20),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_a_written_csv_reads_back(rows):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["record_id", "decision", "note"])
    for rid, verdict, note in rows:
        w.writerow([rid, verdict, note])
    got = parse_decisions(buf.getvalue(), format="csv")
    assert [(d.identifiers[0][1], d.verdict, d.note) for d in got.decisions] == [
        (rid.strip(), v, n.strip()) for rid, v, n in rows
    ]


def test_asreview_2_export_keeps_the_screeners_note():
    """ASReview 2.x writes the screener's note as ``asreview_note`` (before: not read)."""
    text = (
        "record_id,title,doi,asreview_label,asreview_time,asreview_note,asreview_user_name\n"
        "0,A,10.1000/a,1,2025-09-07T11:00:00Z,keuze: opnemen,ana\n"
        "1,B,10.1000/b,0,2025-09-07T11:01:00Z,,ana\n"
    )
    got = parse_decisions(text)
    assert got.format == "asreview"
    assert [(d.verdict, d.note) for d in got.decisions] == [
        ("include", "keuze: opnemen"), ("exclude", ""),
    ]  # fmt: skip
