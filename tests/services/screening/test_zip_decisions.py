"""The Study's ZIP carries its screening decisions (issue 28): a Study recovered from its
ZIP into another workspace has the same decisions per study and the same PRISMA 2020 flow
(recorded as the recovering account's, matched to the recovered records as any decisions
file is). SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from tests.services.screening._study import make_study

from litdesk.services.app import open_app_sync
from litdesk.services.screening import (
    ConfigureRequest,
    DecideRequest,
    ExportDecisionsRequest,
    ItemsRequest,
    PrismaFlowRequest,
    RetrievalRequest,
    StudyScreenRequest,
)
from litdesk.services.screening._config import DEFAULT_REASONS
from litdesk.services.studies import RecoverRequest

TA, FT = "title_abstract", "full_text"


def _flow(app: Any, sid: str) -> dict[str, object]:
    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).to_dict()
    return {k: v for k, v in flow["total"].items()}


def test_a_recovered_study_has_its_decisions_and_its_prisma(
    any_settings: Any, export: Path, tmp_path: Path
) -> None:
    with open_app_sync(any_settings) as app:
        sid = make_study(app, "Zipped", [export])
        keys = [
            r["record_key"]
            for r in app.screening.items(ItemsRequest(sid, page_size=20), owner=app.owner).rows
        ]
        verdicts = ["include", "include", "include", "exclude", "exclude", "maybe"]
        for key, verdict in zip(keys, verdicts, strict=False):
            app.screening.decide(DecideRequest(sid, TA, key, verdict), owner=app.owner)  # type: ignore[arg-type]
        reason = "Not a randomised controlled trial"  # the Study's own list, carried too
        app.screening.configure(
            ConfigureRequest(sid, reasons=[reason, *DEFAULT_REASONS], inclusion="RCTs only"),
            owner=app.owner,
        )
        app.screening.decide(DecideRequest(sid, FT, keys[0], "include"), owner=app.owner)
        app.screening.decide(
            DecideRequest(sid, FT, keys[1], "exclude", reason=reason), owner=app.owner
        )
        before = _flow(app, sid)
        data = app.studies.export_zip(sid, owner=app.owner).body
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {
            "screening/title_abstract.csv", "screening/full_text.csv", "screening/settings.json"
        } <= set(z.namelist())  # fmt: skip
    other = any_settings.model_copy(update={"data_dir": tmp_path / "other"})
    if "postgres" in str(any_settings.database_url):
        other = any_settings  # the same schema: the recovered Study is a new Study
    with open_app_sync(other) as app2:
        done = app2.studies.recover_zip(RecoverRequest(data), owner=app2.owner).to_dict()
        assert done["decisions"][TA]["recorded"] == 6
        assert done["decisions"][FT]["recorded"] == 2
        assert done["decisions"][TA]["unmatched"] == 0 and done["decisions"][FT]["refused"] == 0
        assert _flow(app2, str(done["study_id"])) == before
        settings = app2.screening.settings(
            StudyScreenRequest(str(done["study_id"])), owner=app2.owner
        ).to_dict()
        assert settings["reasons"][0] == reason and "RCTs only" in str(settings)


def _replace_member(data: bytes, name: str, body: bytes) -> bytes:
    """The ZIP with one member's bytes replaced and its manifest entry made to match, as a
    ZIP made before the whole history was carried (without its history and review mode)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members[name] = body
    manifest = json.loads(members["manifest.json"])
    old = ("screening/history.csv", "screening/review.json")
    manifest["members"] = [m for m in manifest["members"] if m["path"] not in old]
    for gone in old:
        members.pop(gone, None)
    for entry in manifest["members"]:
        if entry["path"] == name:
            entry["bytes"], entry["sha256"] = (
                len(body),
                "sha256:" + hashlib.sha256(body).hexdigest(),
            )
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            z.writestr(n, b)
    return out.getvalue()


def test_a_refused_decisions_file_is_said_beside_the_recovered_study(
    app: Any, export: Path
) -> None:
    sid = make_study(app, "Refused", [export])
    key = app.screening.items(ItemsRequest(sid, page_size=5), owner=app.owner).rows[0]
    app.screening.decide(DecideRequest(sid, TA, key["record_key"], "include"), owner=app.owner)
    data = app.studies.export_zip(sid, owner=app.owner).body
    broken = _replace_member(data, f"screening/{TA}.csv", b"nothing,here\n1,2\n")
    done = app.studies.recover_zip(RecoverRequest(broken, "Recovered"), owner=app.owner)
    view = done.to_dict()
    assert set(view["decisions"][TA]) == {"error"} and view["decisions"][TA]["error"]
    assert view["papers"] == 49  # the Study itself is stored, its records not lost
    assert _flow(app, done.study.study_id)["Records screened"] == 0


def _boxes(app: Any, sid: str) -> dict[str, object]:
    """The flow's full-text boxes, all rounds."""
    rounds = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).to_dict()["rounds"]
    out: dict[str, object] = {}
    for r in rounds:
        for box in ("sought", "not_retrieved", "assessed", "awaiting_full_text", "included"):
            out[box] = int(out.get(box, 0)) + r[box]  # type: ignore[call-overload]
        reasons = out.setdefault("excluded_reasons", {})
        for why, n in r["excluded_reasons"].items():
            reasons[why] = reasons.get(why, 0) + n  # type: ignore[union-attr]
    return out


def _csv(data: bytes, name: str) -> list[dict[str, str]]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return list(csv.DictReader(io.StringIO(z.read(name).decode("utf-8"))))


def test_the_full_text_file_lists_the_reports_sought_as_the_prisma_flow_counts_them(
    any_settings: Any, export: Path, tmp_path: Path
) -> None:
    """walk12: the ZIP's full_text.csv listed every record of the Study (89, 81 never
    sought, as "undecided") and not the report recorded not retrieved. It lists the reports
    sought for retrieval, each with its decision, reason and retrieval; its numbers are
    the flow's of the same ZIP, and a recovered Study's flow is the same again."""
    with open_app_sync(any_settings) as app:
        sid = make_study(app, "Sought", [export])
        keys = [
            r["record_key"]
            for r in app.screening.items(ItemsRequest(sid, page_size=20), owner=app.owner).rows
        ]
        ta = ["include", "include", "include", "maybe", "include", "exclude", "exclude"]
        for key, verdict in zip(keys, ta, strict=False):
            app.screening.decide(DecideRequest(sid, TA, key, verdict), owner=app.owner)  # type: ignore[arg-type]
        reason = DEFAULT_REASONS[0]
        app.screening.decide(DecideRequest(sid, FT, keys[0], "include"), owner=app.owner)
        app.screening.decide(
            DecideRequest(sid, FT, keys[1], "exclude", reason=reason), owner=app.owner
        )
        app.screening.retrieval(
            RetrievalRequest(sid, keys[2], False, note="=no access"), owner=app.owner
        )
        app.screening.retrieval(RetrievalRequest(sid, keys[4], True), owner=app.owner)
        flow = _boxes(app, sid)
        everything = app.screening.export_decisions(
            ExportDecisionsRequest(sid, FT), owner=app.owner
        ).text
        data = app.studies.export_zip(sid, owner=app.owner).body
    assert flow["sought"] == 5 and flow["not_retrieved"] == 1 and flow["included"] == 1
    rows = _csv(data, "screening/full_text.csv")
    by_key = {r["record_id"]: r for r in rows}
    # the reports sought, no other study (47 in all; 2 excluded at title/abstract)
    assert len(rows) == flow["sought"] and set(by_key) == {keys[i] for i in (0, 1, 2, 3, 4)}
    not_retrieved = [r for r in rows if r["retrieval"] == "not retrieved"]
    assert len(not_retrieved) == flow["not_retrieved"]
    assert not_retrieved[0]["record_id"] == keys[2]
    assert not_retrieved[0]["retrieval_note"] == "'=no access"  # formula-safe
    assert by_key[keys[4]]["retrieval"] == "retrieved" and by_key[keys[0]]["retrieval"] == ""
    rest = [r for r in rows if r["retrieval"] != "not retrieved"]
    assert sum(r["decision"] == "include" for r in rest) == flow["included"]
    excluded: dict[str, int] = {}
    for r in rest:
        if r["decision"] == "exclude":
            excluded[r["reason"]] = excluded.get(r["reason"], 0) + 1
    assert excluded == flow["excluded_reasons"] == {reason: 1}
    assert sum(r["decision"] in ("include", "exclude") for r in rest) == flow["assessed"]
    assert len(rest) - int(flow["assessed"]) == flow["awaiting_full_text"] == 2  # type: ignore[call-overload]
    # each row is the decisions export's row (screen export-decisions), columns and all
    exported = {r["record_id"]: r for r in csv.DictReader(io.StringIO(everything))}
    for r in rows:
        assert {k: v for k, v in r.items() if not k.startswith("retrieval")} == exported[
            r["record_id"]
        ]
    # the export itself lists the same reports sought, not every study (47 of 49 records)
    assert set(exported) == set(by_key)
    other = any_settings.model_copy(update={"data_dir": tmp_path / "other"})
    if "postgres" in str(any_settings.database_url):
        other = any_settings
    with open_app_sync(other) as app2:
        done = app2.studies.recover_zip(RecoverRequest(data), owner=app2.owner).to_dict()
        assert done["decisions"][FT]["retrieval"] == 2  # both notes, as yours
        assert done["decisions"][FT]["retrieval_unmatched"] == 0
        assert _boxes(app2, str(done["study_id"])) == flow
        again = app2.studies.export_zip(str(done["study_id"]), owner=app2.owner).body

    def same(found: list[dict[str, str]]) -> list[dict[str, str]]:
        return [{k: v for k, v in r.items() if k != "record_id"} for r in found]

    # the same file again (the recovered records have keys of their own)
    assert same(_csv(again, "screening/full_text.csv")) == same(rows)
