"""Rayyan's screening notes and its RIS export (issue 28): every section read (inclusion per
reviewer, labels, exclusion reasons, reviewers' own notes; escaped quotes in names), notes
written from any reviewers, verdicts, labels and reasons read back (Hypothesis), malformed
notes a typed error naming what is wrong, any text read or refused with that error only, time
linear in the notes; the RIS export's records (continuation lines as Rayyan writes them: the
real Rayyan export among the fixtures) and its decisions, a malformed record reported beside
the others."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.screening import (
    DecisionsFileError,
    RayyanNotesError,
    parse_decisions,
    parse_rayyan_notes,
    rayyan_ris_records,
)

#: a real Rayyan RIS export (no decisions in it; KW values on untagged lines)
RAYYAN_RIS = "bib/ris/asreview__ris_issue_992.txt"
WORDS = {"include": "Included", "exclude": "Excluded", "maybe": "Maybe"}


def test_every_section_is_read():
    notes = parse_rayyan_notes(
        'From Embase. RAYYAN-INCLUSION: {"Kofi"=>"Included", "Ama \\"A.\\" Owusu"=>"Maybe",'
        ' "Li"=>"excluded"} | RAYYAN-LABELS: RCT,Hospital | RAYYAN-EXCLUSION-REASONS: '
        'wrong population,__EXR__foreign language | USER-NOTES: {"Kofi"=>["check the dose", '
        '"ask Ama"], "Li"=>[]}'
    )
    assert notes.inclusion == (
        ("Kofi", "include"), ('Ama "A." Owusu', "maybe"), ("Li", "exclude"),
    )  # fmt: skip
    assert notes.labels == ("RCT", "Hospital")
    assert notes.reasons == ("wrong population", "foreign language")
    assert notes.notes_of("Kofi") == ("check the dose", "ask Ama")
    assert notes.notes_of("Li") == () and notes.notes_of("Nobody") == ()
    assert parse_rayyan_notes("a note of the database only").inclusion == ()


@pytest.mark.parametrize(
    ("notes", "says"),
    [
        ('RAYYAN-INCLUSION: {"Kofi"=>"Included"', "not closed by }"),
        ('RAYYAN-INCLUSION: {"Kofi"=>"Included" "Ama"=>"Maybe"}', "not closed by }"),
        ("RAYYAN-INCLUSION: Kofi=>Included", "is not a {…} map"),
        ('RAYYAN-INCLUSION: {"Kofi" "Included"}', "'Kofi' is not followed by =>"),
        ('RAYYAN-INCLUSION: {"Kofi=>"Included"}', "is not followed by =>"),
        ('RAYYAN-INCLUSION: {"Kofi"=>"Included}', "has no closing quote"),
        ('RAYYAN-INCLUSION: {"Kofi"=>Included}', "is not in double quotes"),
        ('RAYYAN-INCLUSION: {" "=>"Maybe"}', "empty reviewer name"),
        ('RAYYAN-INCLUSION: {"Kofi"=>"Included", "kofi"=>"Excluded"}', "two different"),
        ('USER-NOTES: {"Kofi"=>["a", "b"}', "not closed by ]"),
    ],
)
def test_malformed_notes_are_a_typed_error_naming_the_problem(notes, says):
    with pytest.raises(RayyanNotesError) as err:
        parse_rayyan_notes(notes)
    assert says in err.value.message
    assert isinstance(err.value, DecisionsFileError)  # what callers of the file catch


def test_an_unknown_decision_is_that_reviewers_the_others_stand():
    """Before: one reviewer's unknown word ("Undecided") made the whole record unreadable,
    the other reviewer's decision of it lost."""
    notes = parse_rayyan_notes(
        'RAYYAN-INCLUSION: {"Kofi"=>"Undecided", "Ama"=>"Included", "Ed"=>"Yes"}'
    )
    assert notes.inclusion == (("Ama", "include"),)
    assert [name for name, _ in notes.unreadable] == ["Kofi", "Ed"]
    assert "decision 'Yes' is not Included, Excluded or Maybe" in notes.unreadable[1][1]
    got = parse_decisions(
        'title,notes\n"A title","RAYYAN-INCLUSION: {""Kofi""=>""Undecided"", '
        '""Ama""=>""Included""}"\n"B title","RAYYAN-INCLUSION: {""Kofi""=>""Conflict""}"\n'
    )
    assert [(d.line, d.reviewer, d.verdict) for d in got.decisions] == [(2, "Ama", "include")]
    assert [line for line, _ in got.problems] == [2, 3] and not got.skipped


_NAME = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=15
).filter(lambda s: " ".join(s.split()))
_ITEM = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=",|"), max_size=15
).filter(lambda s: " ".join(s.split()) and "RAYYAN-" not in s and "USER-NOTES" not in s)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(_NAME, st.sampled_from(list(WORDS)), min_size=1, max_size=5).filter(
        lambda d: len({" ".join(k.split()).casefold() for k in d}) == len(d)
    ),
    st.lists(_ITEM, max_size=4),
    st.lists(_ITEM, max_size=4),
    st.sampled_from([" | ", "|", " |\n"]),
)
def test_written_notes_read_back(verdicts, labels, reasons, joint):
    sections = [
        "RAYYAN-INCLUSION: {"
        + ", ".join(f"{_quoted(k)}=>{_quoted(WORDS[v])}" for k, v in verdicts.items())
        + "}"
    ]
    if labels:
        sections.append("RAYYAN-LABELS: " + ",".join(labels))
    if reasons:
        sections.append("RAYYAN-EXCLUSION-REASONS: " + ",".join(reasons))
    notes = parse_rayyan_notes(joint.join(sections))
    assert notes.inclusion == tuple((" ".join(k.split()), v) for k, v in verdicts.items())
    assert notes.labels == _items(labels) and notes.reasons == _items(reasons)


def _items(written: list[str]) -> tuple[str, ...]:
    """Comma-separated items as read: spaces collapsed, Rayyan's ``__EXR__`` off, empty
    ones and repeats left out."""
    clean = (" ".join(x.split()).removeprefix("__EXR__").strip() for x in written)
    return tuple(dict.fromkeys(x for x in clean if x))


_PIECES = [*'ab ,"\\{}[]=>|:', "=>", "RAYYAN-INCLUSION:", "USER-NOTES:", "RAYYAN-LABELS:",
           '"Included"', '"Maybe"', '"Kofi"']  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_any_notes_are_read_or_refused_with_the_typed_error(text):
    try:
        notes = parse_rayyan_notes(text)
    except RayyanNotesError:
        return
    for name, verdict in notes.inclusion:
        assert name.strip() and verdict in ("include", "exclude", "maybe")


@pytest.mark.parametrize(
    "nasty",
    [
        'RAYYAN-INCLUSION: {"' + "\\a" * 60_000,  # escapes, never a closing quote
        "RAYYAN-INCLUSION: {" + '"a"=>"Maybe",' * 20_000,  # a map never closed
        "RAYYAN-LABELS:" * 20_000,  # sections without values
        'USER-NOTES: {"a"=>[' + '"x",' * 20_000,
    ],
)
def test_time_is_linear_in_the_notes(nasty):
    def timed(text: str) -> float:
        """The parse's CPU time, best of three (a loaded machine's waits are not counted)."""
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            with contextlib.suppress(RayyanNotesError):
                parse_rayyan_notes(text)
            best = min(best, time.process_time() - t)
        return best

    assert timed(nasty * 4) < 4 * timed(nasty) * 4 + 0.3


def test_the_real_rayyan_ris_export_is_read_record_by_record(fixtures_dir: Path):
    text = (fixtures_dir / RAYYAN_RIS).read_text(encoding="utf-8")
    records = list(rayyan_ris_records(text))
    assert len(records) == text.count("\nER  -") + text.startswith("ER  -")
    assert all(tags["AN"][0].startswith("rayyan-") for _, tags in records)
    lines = text.split("\n")
    assert all(lines[line - 1].startswith("TY  -") for line, _ in records)
    first = records[0][1]
    assert "Medication Reconciliation" in first["KW"]  # an untagged continuation line
    assert first["TI"] == ["Overcoming Medication Reconciliation Challenges"]
    got = parse_decisions(text)  # Rayyan's RIS without decisions: every record skipped
    assert got.format == "rayyan" and got.decisions == () and not got.problems
    assert got.skipped == tuple(line for line, _ in records)
    with pytest.raises(DecisionsFileError) as err:
        parse_decisions(text, format="csv")
    assert err.value.code == "ris_not_rayyan"


def test_rayyan_ris_decisions_with_a_malformed_record_beside_them():
    text = (
        "\ufeffTY  - JOUR\nAN  - rayyan-1\nTI  - Alpha trial of\n  exercise\nDO  - "
        "https://doi.org/10.1000/ALPHA\nN1  - Journal subset: Core.\nN1  - RAYYAN-INCLUSION: "
        '{"Kofi"=>"Excluded", "Ama"=>"Included"} | RAYYAN-EXCLUSION-REASONS: wrong dose | '
        'USER-NOTES: {"Kofi"=>["too short"]}\nER  - \n\n'
        'TY  - JOUR\nTI  - Beta\nAN  - 31234567\nN1  - RAYYAN-INCLUSION: {"Kofi"=>"Maybe"\n'
        "ER  - \n"
        'TY  - JOUR\nTI  - Gamma cohort\nN1  - RAYYAN-INCLUSION: {"Ama"=>"Maybe"} | '
        "RAYYAN-LABELS: cohort\nER  - \n"
        'TY  - JOUR\nN1  - RAYYAN-INCLUSION: {"Ama"=>"Maybe"}\nER  - \n'
    )
    got = parse_decisions(text, format="rayyan")
    ty = [n for n, line in enumerate(text.split("\n"), 1) if line.lstrip("\ufeff")[:2] == "TY"]
    assert [(d.line, d.reviewer, d.verdict, d.reason) for d in got.decisions] == [
        (ty[0], "Kofi", "exclude", "wrong dose"),
        (ty[0], "Ama", "include", ""),
        (ty[2], "Ama", "maybe", ""),
    ]
    alpha = got.decisions[0]
    assert alpha.identifiers == (("doi", "10.1000/alpha"), ("title", alpha.identifiers[1][1]))
    assert alpha.note == "too short" and got.decisions[2].labels == ("cohort",)
    assert [line for line, _ in got.problems] == [ty[1], ty[3]]
    assert "not closed by }" in got.problems[0][1]
    assert "no record identifier" in got.problems[1][1]
