"""``litdesk screen simulate`` on the files an independent checker has: every data row is
one 0-based position whatever the file's dialect (BOM, CRLF, ``;``, TAB, quoted newlines,
blank lines, columns in any order, extra columns, duplicate rows, rows with no text), the label
encodings people use, ASReview's CSV and RIS exports, and the typed errors (a row the reader
cannot take, unlabelled records, a workbook, impossible priors). Small files written here."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk.core.screening import parse_label
from litdesk.faces.cli._app import app
from litdesk.faces.cli._labelled import read_labelled

_IN = "carvedilol beta blocker heart failure mortality randomised trial"
_OUT = "wheat irrigation soil nitrogen rainfall crop survey yield"
_HEAD = ["record_id", "title", "abstract", "label_included"]


def _rows(n: int = 30, every: int = 7) -> list[list[str]]:
    rows = []
    for i in range(n):
        inc = i % every == 3
        words = (_IN if inc else _OUT).split()
        rows.append(
            [
                str(i + 1),
                f"Study {i}: {' '.join(words[i % 3 :][:4])}",
                " ".join(words[::-1]) + f" cohort {i} arm{i % 4}",
                "1" if inc else "0",
            ]
        )
    rows[5][1] = rows[5][2] = ""  # a record with neither title nor abstract
    return rows


def _table(head: list[str], rows: list[list[str]], delimiter: str = ",", end: str = "\n") -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator=end)
    writer.writerow(head)
    writer.writerows(rows)
    return out.getvalue()


def _simulate(path: Path, *args: str, labels: str = "label_included") -> tuple[int, dict]:
    result = CliRunner().invoke(
        app, ["screen", "simulate", str(path), "--labels", labels, "--json", *args]
    )
    return result.exit_code, json.loads(result.stdout)


def _order(path: Path, *args: str, labels: str = "label_included") -> list[int]:
    code, doc = _simulate(path, *args, labels=labels)
    assert code == 0, doc
    return list(doc["order"])


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    path = tmp_path_factory.mktemp("plain") / "set.csv"
    path.write_text(_table(_HEAD, _rows()), encoding="utf-8")
    return path, _order(path)


def _with_quoted_newlines(rows: list[list[str]]) -> list[list[str]]:
    out = [list(r) for r in rows]
    out[2][2] = out[2][2].replace(" ", "\n", 2)  # same words, a cell over three lines
    out[9][1] = out[9][1].replace(" ", "\r\n", 1)
    return out


def _variants() -> dict[str, tuple[str, bytes]]:
    rows, head = _rows(), _HEAD
    order = [3, 0, 2, 1]  # label first, title last
    reordered = [[r[i] for i in order] + ["x", ""] for r in rows]
    blank = _table(head, rows[:4]) + "\n\n" + _table(head, rows[4:]).split("\n", 1)[1] + "\n"
    return {
        "bom_crlf": (".csv", b"\xef\xbb\xbf" + _table(head, rows, end="\r\n").encode()),
        # CR alone (classic Mac, Excel for Mac's "CSV (Macintosh)"): before, refused as no
        # format litdesk reads (the header was sniffed up to the first LF, i.e. the whole file)
        "cr_only": (".csv", _table(head, rows, end="\r").encode()),
        "semicolon": (".csv", _table(head, rows, ";").encode()),
        "tab": (".tsv", _table(head, rows, "\t").encode()),
        "utf16": (".csv", _table(head, rows).encode("utf-16")),
        "blank_lines": (".csv", blank.encode()),
        "columns": (
            ".csv",
            _table([head[i] for i in order] + ["Notes", "empty"], reordered).encode(),
        ),
        "quoted_newlines": (".csv", _table(head, _with_quoted_newlines(rows)).encode()),
    }


@pytest.mark.parametrize("name", list(_variants()))
def test_dialects_keep_every_row_at_its_position(
    tmp_path: Path, plain: tuple[Path, list[int]], name: str
):
    """The same rows in another dialect: the same order of positions (a skipped, merged or
    shifted row would change it)."""
    suffix, data = _variants()[name]
    path = tmp_path / f"set{suffix}"
    path.write_bytes(data)
    if name == "quoted_newlines":  # its text differs (line breaks), its words do not
        assert sorted(_order(path)) == list(range(30))
    assert _order(path) == plain[1]


def test_duplicate_rows_are_separate_positions(tmp_path: Path):
    rows = _rows()
    rows = rows[:10] + [list(r) for r in rows[:10]] + rows[10:]  # exact copies, ids too
    path = tmp_path / "dups.csv"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 0, doc
    assert sorted(doc["order"]) == list(range(40))
    labels = [r[3] == "1" for r in rows]
    assert doc["included"] == sum(labels) == 5
    # both copies of an include are found among the first includes
    assert {3, 13} <= set(doc["order"][: 2 + sum(labels)])


def test_a_row_the_reader_would_drop_is_named(tmp_path: Path):
    rows = _rows()
    rows[6] = ["", "", "", ""]  # a row of delimiters only: pandas (ASReview) counts it as a row
    path = tmp_path / "set.csv"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 2
    assert doc["code"] == "unreadable_row" and "order" not in doc
    assert "line 8" in doc["message"] and "record 6" in doc["message"]


def test_a_cell_over_the_csv_readers_bound_keeps_its_row_at_its_position(tmp_path: Path):
    """A 140,000-character abstract (over the csv module's 128 KiB cell bound): its row is
    read from its raw text (it stopped the reading, and simulate refused the file), so every
    record keeps its position as pandas (ASReview) reads them."""
    rows = _rows()
    rows[7][2] = "x" * 140_000
    path = tmp_path / "set.csv"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 0, doc
    assert sorted(doc["order"]) == list(range(len(rows)))


@pytest.mark.parametrize(
    ("included", "excluded"),
    [
        ("1.0", "0.0"),
        ("TRUE", "False"),
        (" yes ", "No"),
        ("y", "N"),
        ("Included", "excluded"),
        ("include", "EXCLUDE"),
        ("ASReview_relevant", "ASReview_irrelevant"),
    ],
)
def test_label_encodings(tmp_path: Path, plain: tuple[Path, list[int]], included, excluded):
    rows = [[*r[:3], included if r[3] == "1" else excluded] for r in _rows()]
    path = tmp_path / "set.csv"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    assert _order(path) == plain[1]


def test_parse_label():
    assert parse_label(" 1 ") is True and parse_label("+1.00") is True
    assert parse_label("0.0") is False and parse_label("<p>ASReview_irrelevant</p>") is False
    for empty in ("", "  ", "-1", "-1.0", "NaN", "NA", "n/a", "None", "ASReview_not_seen"):
        assert parse_label(empty) is None, empty
    for bad in ("maybe", "2", "0.5", "inc", "?"):
        assert parse_label(bad) == "unknown", bad


def test_asreview_csv_export(tmp_path: Path, plain: tuple[Path, list[int]]):
    """ASReview's export: the index first (``record_id``), its own columns, the label in
    ``included`` (1.x; ``asreview_label`` later, ``label_included`` in its datasets); any case
    and spacing of the name."""
    rows = _rows()
    head = ["record_id", "Title", "Abstract", "Authors", "included", "asreview_ranking"]
    body = [[r[0], r[1], r[2], "Smith, J.", r[3], str(i + 1)] for i, r in enumerate(rows)]
    path = tmp_path / "asreview.csv"
    path.write_text(_table(head, body), encoding="utf-8")
    assert _order(path, labels="included") == plain[1]
    assert _order(path, labels=" Included ") == plain[1]
    head[4] = "asreview_label"
    path.write_text(_table(head, body), encoding="utf-8")
    assert _order(path, labels="ASReview Label") == plain[1]


def test_asreview_column_names_on_a_real_set_with_cr_line_ends(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    """A real labelled set (SYNERGY Oud 2018, 952 records) with the column names ASReview's
    readers also accept — ``primary_title``, ``notes_abstract``, ``first_authors``, the label
    in ``asreview_label`` — saved with CR line ends: the same records, titles and abstracts
    as the original (before: refused, and with LF line ends the titles and abstracts were
    read as extra columns, no title column found)."""
    source = fixtures_dir / "screening" / "synergy_Oud_2018" / "synergy_Oud_2018.csv"
    with source.open(encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh))
    renames = {
        "title": "primary_title",
        "abstract": "notes_abstract",
        "authors": "first_authors",
        "label_included": "asreview_label",
    }
    head = [renames.get(h, h) for h in table[0]]
    records, labels = read_labelled(source, "label_included")
    assert len(records) == 952 and sum(labels) == 20
    for end in ("\r", "\n"):
        path = tmp_path / f"asreview{len(end)}.csv"
        path.write_text(_table(head, table[1:], end=end), encoding="utf-8")
        again, again_labels = read_labelled(path, "asreview_label")
        assert again_labels == labels
        assert [(r.title, r.abstract) for r in again] == [(r.title, r.abstract) for r in records]
        assert sum(1 for r in again if r.abstract) > 900  # the abstracts were read


def _ris(rows: list[list[str]], note: dict[str, str]) -> str:
    out = []
    for r in rows:
        out += ["TY  - JOUR", f"TI  - {r[1]}", f"AB  - {r[2]}", f"N1  - {note[r[3]]}"]
        out += ["N1  - asreview_ranking: 3", "ER  - ", ""]
    return "\n".join(out)


def test_asreview_ris_export(tmp_path: Path, plain: tuple[Path, list[int]]):
    """ASReview writes the label as a note; ``--labels N1`` (or its column names) reads it;
    a record ASReview marks not seen is an unlabelled record."""
    rows = [r if r[1] else [r[0], " ", " ", r[3]] for r in _rows()]
    notes = {"1": "ASReview_relevant", "0": "ASReview_irrelevant", "": "ASReview_not_seen"}
    path = tmp_path / "asreview.ris"
    path.write_text(_ris(rows, notes), encoding="utf-8")
    assert _order(path, labels="N1") == plain[1]
    assert _order(path, labels="included") == plain[1]
    rows[11][3] = ""
    path.write_text(_ris(rows, notes), encoding="utf-8")
    code, doc = _simulate(path, labels="N1")
    assert code == 2 and doc["code"] == "unlabelled"
    assert "record 11 " in doc["message"] and "order" not in doc


def test_asreview_labels_inside_longer_notes(tmp_path: Path, plain: tuple[Path, list[int]]):
    """ASReview reads its label from the first note holding it anywhere ("Additional notes 1.
    ASReview_relevant."), as a note edited by hand or passed through a reference manager has
    it; litdesk reads it the same way, and a record whose notes hold no label is unlabelled."""
    rows = [r if r[1] else [r[0], " ", " ", r[3]] for r in _rows()]
    notes = {
        "1": "Seen twice. ASReview_relevant.",
        "0": "<p>ASReview_irrelevant. Checked by B.</p>",
        "": "ASReview_not_seen",
    }
    path = tmp_path / "asreview.ris"
    path.write_text(_ris(rows, notes), encoding="utf-8")
    assert _order(path, labels="N1") == plain[1]
    rows[7][3] = ""
    notes[""] = "Additional notes only"
    path.write_text(_ris(rows, notes), encoding="utf-8")
    code, doc = _simulate(path, labels="N1")
    assert code == 2 and doc["code"] == "unlabelled", doc
    assert "record 7 " in doc["message"] and "notes without an ASReview label" in doc["message"]


@pytest.mark.fixtures
def test_asreviews_own_label_notes_test_file(fixtures_dir: Path):
    """ASReview's test file of label notes (labels before, after and between other notes):
    its 12 records with no label or ASReview_not_seen are named, none is read as a bad label."""
    path = fixtures_dir / "bib" / "ris" / "asreview__baseline_tag-notes_labels.ris"
    code, doc = _simulate(path, labels="N1")
    assert code == 2 and doc["code"] == "unlabelled", doc
    assert "12 records" in doc["message"]
    assert (
        "record 2 (lines 13-16); record 3 (lines 18-21); record 6 (lines 35-38)" in doc["message"]
    )


def test_unlabelled_and_bad_labels_name_the_records(tmp_path: Path):
    rows = _rows()
    rows[4][3] = ""
    rows[20][3] = "NA"
    path = tmp_path / "set.csv"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 2 and doc["code"] == "unlabelled"
    assert "2 records" in doc["message"]
    assert "record 4 (line 6)" in doc["message"] and "record 20 (line 22)" in doc["message"]
    rows[4][3] = "maybe"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 2 and doc["code"] == "bad_label"
    assert "record 4 (line 6): 'maybe'" in doc["message"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("set.xlsx", b"PK\x03\x04" + b"\0" * 64),
        ("set.csv", b"PK\x03\x04" + b"\0" * 64),  # a workbook renamed
        ("set.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 64),
        ("set.txt", b"not a table\nof records\n"),
        ("set.csv", b"heading,summary,included\nA,b,1\nC,d,0\n"),  # no title column
    ],
)
def test_unsupported_files_are_typed_errors(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    code, doc = _simulate(path)
    assert code == 2 and "order" not in doc
    assert doc["code"] in ("unsupported", "undecodable", "malformed")
    if name.startswith("set.xls"):
        assert "save the sheet as CSV" in doc["message"]
    if data.startswith(b"heading"):  # no title, DOI or PMID column: said so
        assert "a CSV/TSV needs a header row naming a title column" in doc["message"]


def test_priors_edge_cases(tmp_path: Path, plain: tuple[Path, list[int]]):
    path = plain[0]
    # no priors: the seed's random order until an include and an exclude are known, then
    # the model; every record once
    code, doc = _simulate(path, "--prior-included", "0", "--prior-excluded", "0")
    assert code == 0 and doc["priors"] == [] and sorted(doc["order"]) == list(range(30))
    assert doc["retrains"] > 0
    code, doc = _simulate(path, "--prior-included", "5")
    assert code == 2 and doc["code"] == "bad_priors" and "order" not in doc
    one = [list(r) for r in _rows()]
    for r in one:
        r[3] = "1" if r[0] == "11" else "0"
    path = tmp_path / "one.csv"
    path.write_text(_table(_HEAD, one), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 0 and doc["order"][0] == 10 and doc["recall_at_10"] == 1.0
    every = [[*r[:3], "1"] for r in _rows()]
    path.write_text(_table(_HEAD, every), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 2 and doc["code"] == "bad_priors"  # no excluded record to draw
    code, doc = _simulate(path, "--prior-excluded", "0")
    assert code == 0 and sorted(doc["order"]) == list(range(30)) and doc["included"] == 30


def test_a_quote_never_closed_is_refused_naming_its_row(tmp_path: Path):
    """Before: the rest of the file was read as one cell of that row; simulate said only
    that record 10 had no label (its label cell had gone into the swallowed text)."""
    text = _table(_HEAD, _rows())
    lines = text.split("\n")
    lines[11] = lines[11].replace(",", ',"', 1)  # line 12: a cell opened and never closed
    path = tmp_path / "set.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 2 and doc["code"] == "unreadable_row" and "order" not in doc
    assert "never closed" in doc["message"] and "record 10" in doc["message"]


def test_a_field_over_litdesks_bounds_is_refused_not_read_cut(tmp_path: Path):
    """A 250,000-character abstract was simulated as its first 200,000 (the paper's bound),
    without a word; a checker's file is then not what was simulated."""
    rows = _rows()
    rows[4][2] = "wheat " * 42_000
    path = tmp_path / "set.csv"
    path.write_text(_table(_HEAD, rows), encoding="utf-8")
    code, doc = _simulate(path)
    assert code == 2 and doc["code"] == "too_large" and "order" not in doc
    assert "record 4 (line 6): abstract" in doc["message"]


def test_ris_positions_are_the_records_in_file_order(tmp_path: Path):
    """The rule docs/screening.md states: a RIS position is a record (``TY`` … ``ER``, or the
    next ``TY``, or the end), lines outside records are not records, an empty record keeps
    its position."""

    def rec(title: str, label: str, *more: str) -> list[str]:
        return ["TY  - JOUR", f"TI  - {title}", *more, f"N1  - ASReview_{label}", "ER  - ", ""]

    lines = ["Provider: a database", "Content: text/plain", ""]  # a header outside records
    lines += rec("carvedilol one", "relevant")
    lines += ["TY  - JOUR", "TI  - wheat, no ER", "N1  - ASReview_irrelevant", ""]
    lines += ["TY  - JOUR", "N1  - ASReview_irrelevant", "ER  - ", ""]  # no title or abstract
    lines += ["junk between records", ""]
    lines += rec("carvedilol two", "relevant", "AB  - an abstract", "  on two lines")
    lines += rec("wheat three", "irrelevant")
    path = tmp_path / "set.ris"
    path.write_text("\r\n".join(lines), encoding="utf-8")
    records, labels = read_labelled(path, "N1")
    assert labels == [True, False, False, True, False]
    assert [r.title for r in records] == [
        "carvedilol one",
        "wheat, no ER",
        "",
        "carvedilol two",
        "wheat three",
    ]


def test_same_seed_same_order_across_processes(tmp_path: Path, plain: tuple[Path, list[int]]):
    """What a checker compares: a separate ``litdesk`` process (another hash seed than this
    one's, as two runs of Python have) prints the order this process computes."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONHASHSEED": "12345", "NO_COLOR": "1"}
    env["LITDESK_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-m", "litdesk", "screen", "simulate", str(plain[0])]
        + ["--labels", "label_included", "--seed", "3", "--json"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["order"] == _order(plain[0], "--seed", "3")


def test_out_of_range_seeds_and_counts_are_typed_errors_with_the_document(
    plain: tuple[Path, list[int]],
):
    """Before: ``--seed -1`` or ``--seed 4294967296`` ended in numpy's or scikit-learn's
    traceback (exit 1); ``--prior-included -1`` was the option parser's usage error, with
    nothing on stdout for ``--json``."""
    path = plain[0]
    for seed in ("-1", str(2**32)):
        code, doc = _simulate(path, f"--seed={seed}")
        assert code == 2 and doc["code"] == "bad_seed" and "order" not in doc
    code, doc = _simulate(path, "--prior-included=-1")
    assert code == 2 and doc["code"] == "bad_priors"
    code, doc = _simulate(path, f"--seed={2**32 - 1}")
    assert code == 0 and sorted(doc["order"]) == list(range(30))
