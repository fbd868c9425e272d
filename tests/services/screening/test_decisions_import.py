"""Decisions from other tools (issue 28) on a Study made from a real labelled set: an
ASReview export (its ``included`` column) and a Rayyan export (``RAYYAN-INCLUSION`` notes,
two reviewers) matched by DOI, PMID and title, unmatched rows listed by line, a re-import
recording nothing, full-text exclusions held to the Study's reasons; the PRISMA flow and
``litdesk study prisma --json`` giving the same numbers."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from litdesk import Settings
from litdesk.core.screening import DecisionsFileError
from litdesk.services.app import App, open_app
from litdesk.services.screening import (
    AgreementRequest,
    ConfigureRequest,
    DecideRequest,
    ExportDecisionsRequest,
    HistoryRequest,
    ImportDecisionsRequest,
    PrismaFlowRequest,
    RetrievalRequest,
    StudyStageRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest

OUD = "screening/synergy_Oud_2018/synergy_Oud_2018.csv"
N = 80


def on_app(settings: Settings, body: Callable[[App], Any]) -> Any:
    async def go() -> Any:
        async with open_app(settings) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


@pytest.fixture
def labelled(fixtures_dir: Path, tmp_path: Path) -> tuple[Path, list[dict[str, str]]]:
    """The first rows of a real labelled set (every included one among the first 600
    too, so that both labels occur), written as a file the Study imports."""
    with (fixtures_dir / OUD).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    chosen = rows[:N] + [r for r in rows[N:600] if r["label_included"] == "1"][:5]
    path = tmp_path / "oud.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["title", "abstract", "doi", "pmid", "year"])
        w.writeheader()
        for r in chosen:
            w.writerow({k: r[k] for k in ("title", "abstract", "doi", "pmid", "year")})
    return path, chosen


def _study(app: App, path: Path) -> str:
    sid = app.studies.create_study(CreateStudyRequest("Oud", None), owner=app.owner).id
    app.studies.import_files(ImportRequest(study=sid, paths=(str(path),)), owner=app.owner)
    return sid


def _asreview(rows: list[dict[str, str]]) -> bytes:
    """ASReview LAB's export shape: its own record_id (a row number), the data, included."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["record_id", "title", "abstract", "doi", "included", "asreview_ranking"])
    for i, r in enumerate(rows):
        w.writerow([i, r["title"], r["abstract"][:200], r["doi"], r["label_included"], i + 1])
    w.writerow([len(rows), "A record that is not in the Study at all", "", "", "1", 0])
    w.writerow([len(rows) + 1, "Unlabelled", "", "", "", 0])
    return buf.getvalue().encode("utf-8")


def _rayyan(rows: list[dict[str, str]]) -> bytes:
    """Rayyan's export shape: key, title, ..., notes holding RAYYAN-INCLUSION per reviewer
    (Bob disagrees with Alice on every seventh record)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["key", "title", "authors", "journal", "year", "url", "pmid", "notes"])
    word = {"1": "Included", "0": "Excluded"}
    for i, r in enumerate(rows):
        a = word[r["label_included"]]
        b = a if i % 7 else ("Excluded" if a == "Included" else "Included")
        notes = f'RAYYAN-INCLUSION: {{"Alice"=>"{a}", "Bob"=>"{b}"}}'
        if "Excluded" in (a, b):
            notes += " | RAYYAN-EXCLUSION-REASONS: wrong population"
        w.writerow([i + 1, r["title"], "", "", r["year"], "", r["pmid"], notes])
    return buf.getvalue().encode("utf-8")


def test_asreview_export_matched_reimport_idempotent_and_prisma_agrees(
    tmp_settings: Settings,
    labelled: tuple[Path, list[dict[str, str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, rows = labelled

    def body(app: App) -> dict[str, Any]:
        sid = _study(app, path)
        data = _asreview(rows)
        req = ImportDecisionsRequest(sid, data, "asreview_export.csv")
        first = app.screening.import_decisions(req, owner=app.owner)
        assert first.format == "asreview"
        assert first.rows == len(rows) + 1 and first.skipped == (len(rows) + 3,)
        assert [u["line"] for u in first.unmatched] == [len(rows) + 2]
        reason = str(first.unmatched[0]["reason"])  # the title as the file gives it
        assert "title 'A record that is not in the Study at all'" in reason, reason
        assert first.recorded == len(rows) and first.unchanged == 0
        again = app.screening.import_decisions(req, owner=app.owner)
        assert again.recorded == 0 and again.unchanged == len(rows)
        # the decisions are the file's: the exported CSV says the same per DOI
        export = app.screening.export_decisions(ExportDecisionsRequest(sid), owner=app.owner)
        got = {
            r["doi"]: r["decision"] for r in csv.DictReader(io.StringIO(export.text)) if r["doi"]
        }
        want = {r["doi"].lower(): ("include" if r["label_included"] == "1" else "exclude")
                for r in rows if r["doi"]}  # fmt: skip
        assert {k: got[k] for k in want} == want
        # full text: retrieval and reasons from the Study's list only
        included = [
            r for r in csv.DictReader(io.StringIO(export.text)) if r["decision"] == "include"
        ]
        assert len(included) >= 5
        ft = io.StringIO()
        w = csv.writer(ft)
        w.writerow(["record_id", "decision", "reason"])
        w.writerow([included[0]["record_id"], "exclude", "Wrong population"])
        w.writerow([included[1]["record_id"], "exclude", "the moon was full"])
        w.writerow([included[2]["record_id"], "include", ""])
        excluded = next(
            r for r in csv.DictReader(io.StringIO(export.text)) if r["decision"] == "exclude"
        )
        w.writerow([excluded["record_id"], "include", ""])
        ft_view = app.screening.import_decisions(
            ImportDecisionsRequest(sid, ft.getvalue().encode(), "ft.csv", "full_text"),
            owner=app.owner,
        )
        assert ft_view.recorded == 2
        assert [u["line"] for u in ft_view.refused] == [3, 5]
        app.screening.retrieval(
            RetrievalRequest(sid, included[3]["record_id"], False), owner=app.owner
        )
        flow = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).to_dict()
        (r,) = flow["rounds"]  # type: ignore[misc]
        assert all(c["ok"] for c in r["checks"])
        assert r["screened"] == len(rows) and r["excluded_reasons"] == {"wrong population": 1}
        assert r["not_retrieved"] == 1 and r["included"] == 1
        assert r["sought"] == len(included)
        # the full-text export lists the reports sought (included at title/abstract), not
        # every study; it reads back as the same decisions, and RIS says the same
        ft_req = ExportDecisionsRequest(sid, "full_text")
        ft_export = app.screening.export_decisions(ft_req, owner=app.owner)
        ft_rows = list(csv.DictReader(io.StringIO(ft_export.text)))
        assert {x["record_id"] for x in ft_rows} == {x["record_id"] for x in included}
        assert ft_export.count == len(included) < len(rows)
        assert sorted(x["decision"] for x in ft_rows if x["decision"]) == ["exclude", "include"]
        back = app.screening.import_decisions(
            ImportDecisionsRequest(sid, ft_export.body, "ft_export.csv", "full_text"),
            owner=app.owner,
        )
        assert back.recorded == 0 and back.unchanged == 2 and not back.refused
        ris_req = ExportDecisionsRequest(sid, "full_text", "ris")
        ris = app.screening.export_decisions(ris_req, owner=app.owner).text
        assert ris.count("ER  -") == len(included)
        return {"sid": sid, "flow": flow}

    out = on_app(tmp_settings, body)
    # the CLI prints the same numbers
    from litdesk._settings import get_settings
    from litdesk.faces.cli import app as cli

    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["study", "prisma", out["sid"], "--json"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rounds"] == out["flow"]["rounds"]


def test_rayyan_export_two_reviewers_conflicts_and_agreement(
    tmp_settings: Settings, labelled: tuple[Path, list[dict[str, str]]]
) -> None:
    path, rows = labelled

    def body(app: App) -> None:
        sid = _study(app, path)
        app.screening.configure(
            ConfigureRequest(sid, dual_review={"title_abstract": True}), owner=app.owner
        )
        view = app.screening.import_decisions(
            ImportDecisionsRequest(sid, _rayyan(rows), "rayyan.csv"), owner=app.owner
        )
        assert view.format == "rayyan" and set(view.reviewers) == {"Alice", "Bob"}
        assert view.recorded == 2 * len(rows) and not view.unmatched
        stage = StudyStageRequest(sid, "title_abstract")
        disagree = sum(1 for i, _ in enumerate(rows) if i % 7 == 0)
        assert app.screening.reveal(stage, owner=app.owner).conflicts == disagree
        (pair,) = app.screening.agreement(AgreementRequest(sid), owner=app.owner).pairs
        assert pair["n"] == len(rows) and pair["agreed"] == len(rows) - disagree
        # only Bob's: a reviewer named in the file
        only = app.screening.import_decisions(
            ImportDecisionsRequest(sid, _rayyan(rows), "rayyan.csv", reviewer="Bob"),
            owner=app.owner,
        )
        assert only.reviewers == ("Bob",) and only.recorded == 0 and only.unchanged == len(rows)

    on_app(tmp_settings, body)


def test_bad_files_are_clear_errors(tmp_settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("title,doi\nOne,10.1000/one\n", encoding="utf-8")

    def body(app: App) -> None:
        sid = _study(app, path)
        latin = "title,decision\nOne,include\nCaf\u00e9 study,exclude\n".encode("cp1252")
        view = app.screening.import_decisions(ImportDecisionsRequest(sid, latin), owner=app.owner)
        assert view.recorded == 1 and view.unmatched[0]["line"] == 3
        # decoded, matched by its normalised form, quoted as the file gives it
        assert "title 'Caf\u00e9 study'" in str(view.unmatched[0]["reason"])
        for data in (b"", b"title,colour\nOne,blue\n", b"doi,decision\n10.1000/one,perhaps\n"):
            with pytest.raises(DecisionsFileError):
                app.screening.import_decisions(ImportDecisionsRequest(sid, data), owner=app.owner)

    on_app(tmp_settings, body)


def _rayyan_ris(rows: list[dict[str, str]]) -> bytes:
    """Rayyan's RIS export shape: the inclusion map in ``N1`` beside a database's own note,
    reviewers "Alice Smith" and "Bob" (disagreeing on every fifth record), labels and a
    reviewer's own note on the first; the third record's notes broken (a map not closed)."""
    word = {"1": "Included", "0": "Excluded"}
    out: list[str] = []
    for i, r in enumerate(rows):
        a = word[r["label_included"]]
        b = a if i % 5 else ("Excluded" if a == "Included" else "Included")
        notes = f'RAYYAN-INCLUSION: {{"Alice Smith"=>"{a}", "Bob"=>"{b}"}}'
        if i == 0:
            notes += ' | RAYYAN-LABELS: cohort,dose | USER-NOTES: {"Alice Smith"=>["see table 2"]}'
        if "Excluded" in (a, b):
            notes += " | RAYYAN-EXCLUSION-REASONS: wrong population"
        if i == 2:
            notes = notes.replace("}", "", 1)
        out += [
            "TY  - JOUR",
            f"AN  - rayyan-{1000 + i}",
            f"TI  - {r['title']}",
            f"DO  - {r['doi']}" if r["doi"] else f"AN  - {r['pmid']}",
            "N1  - Journal subset: Core clinical journals.",
            f"N1  - {notes}",
            "ER  - ",
            "",
        ]
    return "\n".join(out).encode("utf-8")


def test_rayyan_ris_export_with_a_reviewer_map_and_a_broken_record(
    tmp_settings: Settings, labelled: tuple[Path, list[dict[str, str]]]
) -> None:
    """Rayyan's RIS export read: Alice's decisions recorded as the account "ana" (mapped;
    the account's id stored, its name shown), Bob's (not in the map) listed with their
    lines, the broken record reported beside the others; a map naming someone absent from
    the file, an account that does not screen in the Study, or a map for a file that is
    not Rayyan's, refused before anything is recorded."""
    from litdesk.adapters.store import screening as store_screening
    from litdesk.services.accounts import Accounts
    from litdesk.services.screening import HistoryRequest, ScreeningRequestError

    path, rows = labelled
    data = _rayyan_ris(rows)
    lines = [n for n, t in enumerate(data.decode().split("\n"), 1) if t.startswith("TY  -")]

    def body(app: App) -> None:
        from litdesk.adapters.store import accounts as access
        from litdesk.services.workspace import now_iso

        accounts = Accounts(app.store, tmp_settings)
        ana = accounts.add("ana", "correct horse battery").id
        eve = accounts.add("eve", "correct horse battery").id
        sid = _study(app, path)
        with app.store.write() as conn:
            access.set_member(conn, sid, ana, "editor", app.owner, now_iso())
            access.set_member(conn, sid, eve, "viewer", app.owner, now_iso())
        req = ImportDecisionsRequest(
            sid, data, "rayyan.ris", reviewer_map=(("alice  smith", "ana"),)
        )
        view = app.screening.import_decisions(req, owner=app.owner)
        assert view.format == "rayyan" and view.reviewers == (ana,)
        assert view.reviewer_names == ("ana",)
        assert [p["line"] for p in view.problems] == [lines[2]]
        assert "Rayyan's notes cannot be read" in str(view.problems[0]["reason"])
        assert view.recorded == len(rows) - 1
        bob = [u for u in view.unmatched if "'Bob' is not in the reviewer map" in u["reason"]]
        assert [u["line"] for u in bob] == [n for i, n in enumerate(lines) if i != 2]
        assert len(view.unmatched) == len(bob)
        with app.store.read() as conn:
            stored = store_screening.list_decisions(conn, sid)
        assert {d.reviewer for d in stored} == {ana} and len(stored) == len(rows) - 1
        want = {
            r["doi"].lower(): "include" if r["label_included"] == "1" else "exclude"
            for i, r in enumerate(rows)
            if r["doi"] and i != 2
        }
        export = app.screening.export_decisions(ExportDecisionsRequest(sid), owner=app.owner)
        got = {r["doi"]: r["decision"] for r in csv.DictReader(io.StringIO(export.text))}
        assert {k: got[k] for k in want} == want
        # the first record: Alice's own note and the labels in her decision's note
        first = next(d for d in stored if d.note)
        assert first.note == "see table 2 · Rayyan labels: cohort, dose"
        history = app.screening.history(HistoryRequest(sid, first.record_key), owner=app.owner)
        assert [e["reviewer_name"] for e in history.entries] == ["ana"]
        # only one mapped reviewer of several: --reviewer with the map
        both = (("Alice Smith", "ana"), ("Bob", "bob"))
        only_bob = app.screening.import_decisions(
            ImportDecisionsRequest(sid, data, "rayyan.ris", reviewer="bob", reviewer_map=both),
            owner=app.owner,
        )
        assert only_bob.reviewers == ("bob",) and only_bob.recorded == len(rows) - 1
        with pytest.raises(ScreeningRequestError) as err:
            app.screening.import_decisions(
                ImportDecisionsRequest(sid, data, "r.ris", reviewer_map=(("Alicia", "ana"),)),
                owner=app.owner,
            )
        assert "'Alicia', who made no decision in the file" in err.value.message
        assert "Alice Smith, Bob" in err.value.message
        # an account mapped must screen in the Study (eve only views it)
        with pytest.raises(ScreeningRequestError) as err:
            app.screening.import_decisions(
                ImportDecisionsRequest(sid, data, "r.ris", reviewer_map=(("Bob", "eve"),)),
                owner=app.owner,
            )
        assert err.value.code == "not_a_screener" and eve not in err.value.message
        with pytest.raises(ScreeningRequestError) as err:
            app.screening.import_decisions(
                ImportDecisionsRequest(sid, _asreview(rows), "a.csv", reviewer_map=both),
                owner=app.owner,
            )
        assert err.value.code == "bad_reviewer_map"
        # a member (not the owner) mapping a reviewer to another account is refused: the
        # message names that reviewer by user name, the id only in the details (before:
        # "for other reviewers (acct_…)")
        cy = accounts.add("cy", "correct horse battery").id
        with app.store.write() as conn:
            access.set_member(conn, sid, cy, "editor", app.owner, now_iso())
        to_cy = (("Alice Smith", "ana"), ("Bob", "cy"))
        with pytest.raises(access.NotPermitted) as refused:
            app.screening.import_decisions(
                ImportDecisionsRequest(sid, data, "r.ris", reviewer_map=to_cy), owner=ana
            )
        said = refused.value.message
        assert "for other reviewers (cy)" in said and cy not in said and ana not in said
        assert refused.value.to_dict()["details"] == {"reviewers": [cy]}

    on_app(tmp_settings, body)


def test_a_checkers_csv_every_row_accounted_for(tmp_settings: Settings, tmp_path: Path) -> None:
    """A hand-made decisions file with the rows a checker has: a DOI as a URL, a title with
    HTML entities and other case and punctuation, an unknown word, a row with no identifier,
    two rows of one study (agreeing, and disagreeing), a row whose DOI is one study and title
    another. Before: 'Pending' (or the row with no identifier) refused the whole file, a
    study's earlier row vanished without a word and the mixed row went to the DOI's study.
    Now every data row is recorded or listed with its line and why."""
    path = tmp_path / "r.csv"
    path.write_text(
        "title,doi\n"
        "Carvedilol & mortality in chronic heart failure,10.1000/a\n"
        "Wheat irrigation and soil nitrogen,10.1000/b\n"
        "Crop yield under rainfall,10.1000/c\n"
        "Soil microbiome survey,10.1000/d\n",
        encoding="utf-8",
    )
    decisions = (
        "doi,title,decision\n"
        "https://doi.org/10.1000/A,,include\n"  # 2: replaced by line 3 (agrees)
        ",CARVEDILOL &amp; Mortality in <i>chronic</i> heart-failure.,include\n"  # 3: by line 8
        "10.1000/b,Crop yield under rainfall,exclude\n"  # 4: two studies
        "10.1000/c,,Pending\n"  # 5: not a decision word
        ",,include\n"  # 6: no identifier
        "doi:10.1000/d,,exclude\n"  # 7: replaced by line 9 (agrees)
        "10.1000/a,,exclude\n"  # 8: recorded
        ",soil microbiome survey,EXCLUDE\n"  # 9: recorded
    )

    def body(app: App) -> None:
        sid = _study(app, path)
        req = ImportDecisionsRequest(sid, decisions.encode(), "checker.csv")
        view = app.screening.import_decisions(req, owner=app.owner)
        assert view.recorded == 2
        assert {p["line"]: p["reason"] for p in view.problems} == {
            5: "decision 'Pending' is not include, exclude or maybe",
            6: "no record identifier",
        }
        (unmatched,) = view.unmatched
        assert unmatched["line"] == 4 and "another" in str(unmatched["reason"])
        refused = {u["line"]: str(u["reason"]) for u in view.refused}
        assert sorted(refused) == [2, 3, 7]
        assert refused[2].startswith("the same study as line 3, with the same decision")
        assert "line 8" in refused[3] and "include here, exclude there" in refused[3]
        assert refused[7].startswith("the same study as line 9, with the same decision")
        listed = len(view.problems) + len(view.unmatched) + len(view.refused)
        assert view.recorded + listed + len(view.skipped) == 8  # every data row

    on_app(tmp_settings, body)


def test_a_reimport_keeps_notes_and_refuses_reports_not_retrieved(
    tmp_settings: Settings, labelled: tuple[Path, list[dict[str, str]]]
) -> None:
    """A file that carries no note (litdesk's own RIS export, ASReview's) repeating a noted
    decision records nothing — it used to record the same decision again without its
    note, so the note left the decision in force. At full text, a row on a report recorded
    not retrieved is refused with its line (PRISMA counts that report as not retrieved)."""
    path, rows = labelled

    def body(app: App) -> None:
        sid = _study(app, path)
        export = app.screening.export_decisions(ExportDecisionsRequest(sid), owner=app.owner)
        keys = [r["record_id"] for r in csv.DictReader(io.StringIO(export.text))][:4]
        for key in keys:
            app.screening.decide(
                DecideRequest(sid, "title_abstract", key, "include", note=f"RCT, {key}"),
                owner=app.owner,
            )
        for fmt in ("ris", "csv"):
            own = app.screening.export_decisions(
                ExportDecisionsRequest(sid, "title_abstract", fmt), owner=app.owner
            )
            again = app.screening.import_decisions(
                ImportDecisionsRequest(sid, own.body, f"mine.{fmt}"), owner=app.owner
            )
            assert (again.recorded, again.unchanged) == (0, 4), fmt
        bare = "record_id,decision\n" + "".join(f"{k},include\n" for k in keys)
        again = app.screening.import_decisions(
            ImportDecisionsRequest(sid, bare.encode(), "bare.csv"), owner=app.owner
        )
        assert (again.recorded, again.unchanged) == (0, 4)
        for key in keys:
            (entry,) = app.screening.history(HistoryRequest(sid, key), owner=app.owner).entries
            assert entry["note"] == f"RCT, {key}" and entry["status"] == "current"
        # a changed note is a new decision, the earlier kept in the history
        changed = f"record_id,decision,note\n{keys[0]},include,checked the protocol\n"
        view = app.screening.import_decisions(
            ImportDecisionsRequest(sid, changed.encode(), "changed.csv"), owner=app.owner
        )
        assert view.recorded == 1
        # full text: the report recorded not retrieved takes no decision from a file
        app.screening.retrieval(RetrievalRequest(sid, keys[1], False), owner=app.owner)
        ft = "record_id,decision\n" + "".join(f"{k},include\n" for k in keys)
        ft_view = app.screening.import_decisions(
            ImportDecisionsRequest(sid, ft.encode(), "ft.csv", "full_text"), owner=app.owner
        )
        assert ft_view.recorded == 3
        assert [u["line"] for u in ft_view.refused] == [3]
        assert "not retrieved" in str(ft_view.refused[0]["reason"])
        flow = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).to_dict()
        (r,) = flow["rounds"]  # type: ignore[misc]
        assert (r["not_retrieved"], r["assessed"], r["included"]) == (1, 3, 3)

    on_app(tmp_settings, body)
