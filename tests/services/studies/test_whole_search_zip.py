"""Issue 27 (zipfix): a Study's ZIP carries its whole searches — each run's hits (lane,
rank, record) and its rounds — and recovery re-creates them under the importer with fresh
ids, so the recovered Study's records, working set and PRISMA numbers equal the
original's, on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import httpx
import pytest
from tests.services.studies._paged import GeneratedSearch
from tests.services.studies.test_whole_search import EPMC, run_job, settings, with_app

from litdesk import Settings
from litdesk.adapters.store import whole_searches as whole
from litdesk.services.app import App
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    AddSearchRequest,
    RecoverRequest,
    UpdateStudyRequest,
    WorkingSetRequest,
)
from litdesk.services.workspace import StudyExportTooLarge, StudyImportRefused
from litdesk.services.workspace import _exports as exports
from litdesk.services.workspace._archive import (
    MAX_SMALL_MEMBER_BYTES,
    check_export,
)

__all__ = ["settings"]


def _numbers(app: App, study: str) -> dict[str, Any]:
    prisma = app.studies.prisma(study, owner=app.owner).to_dict()
    working = app.studies.working_set(WorkingSetRequest(study), owner=app.owner).to_dict()
    with app.store.read() as conn:
        rounds = [
            (r.round, r.kind, r.cap, len(list(whole.run_hits(conn, r.run_id))))
            for r in whole.list_rounds(conn, study)
        ]
        lanes = sorted(
            (h.lane, h.rank, h.paper_id)
            for r in whole.list_rounds(conn, study)
            for h in whole.run_hits(conn, r.run_id)
        )
    return {
        "papers": sorted(p.id for p in app.workspace().study_summary(study).papers),
        "identification": prisma["identification"],
        "notes": prisma["notes"],
        "counts": working["counts"],
        "groups": len(working["working_set"]),  # type: ignore[arg-type]
        "rounds": rounds,
        "lanes": lanes,
    }


def test_zip_carries_whole_searches(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    state = {"search": GeneratedSearch(120)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Malaria").id
        search = SearchRequest("malaria vaccine", providers=EPMC)
        started = app.studies.add_search(AddSearchRequest(study, search), owner=app.owner)
        assert (await run_job(app, started.job.id)).job.status == "done"
        state["search"] = GeneratedSearch(130, retracted=frozenset({3}))
        started = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner)
        assert (await run_job(app, started.job.id)).job.status == "done"
        before = _numbers(app, study)
        assert before["identification"]["records_identified"] == 250
        assert [r[3] for r in before["rounds"]] == [120, 130]

        data = app.studies.export_zip(study, owner=app.owner).body
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            ris = [n for n in zf.namelist() if n.startswith("search-runs/") and n.endswith(".ris")]
            assert sum(zf.read(n).count(b"\nER  -") for n in ris) == 250

        out = app.studies.recover_zip(RecoverRequest(data), owner=app.owner).to_dict()
        new = str(out["study_id"])
        assert new != study and out["search_runs"] == 2
        assert _numbers(app, new) == before
        with app.store.read() as conn:  # fresh run ids: nothing linked by the ZIP's ids
            old_runs = {r.run_id for r in whole.list_rounds(conn, study)}
            new_runs = {r.run_id for r in whole.list_rounds(conn, new)}
        assert len(new_runs) == 2 and not (new_runs & old_runs)

        # a run's hits tampered with (a hit from a lane the run has not, a round's kind
        # unknown): refused whole, nothing stored
        studies = len(app.workspace().studies())
        for edit in (
            lambda doc: doc["hits"][0]["contributions"][0].update(lane="nowhere"),
            lambda doc: doc["round"].update(kind="other"),
            lambda doc: _hits_times(doc, 900),
        ):
            with pytest.raises(StudyImportRefused) as refused:
                app.studies.recover_zip(RecoverRequest(_edit_hits(data, edit)), owner=app.owner)
            assert refused.value.code == "invalid_records"
        assert len(app.workspace().studies()) == studies

        # a whole search over what a ZIP carries: the export is refused, never truncated
        monkeypatch.setattr(exports, "MAX_ZIP_HITS", 125)
        with pytest.raises(StudyExportTooLarge, match="130 records, over the 125"):
            app.studies.export_zip(study, owner=app.owner)

    with_app(settings, handler, body)


def _hits_times(doc: dict[str, Any], times: int) -> bytes:
    """``json.dumps(doc | {"hits": doc["hits"] * times}).encode()``, each hit encoded once
    (117,000 hits: the encoder's second of CPU, for the same bytes)."""
    marker = "hits repeated here"
    text = json.dumps(doc | {"hits": marker})
    hits = ", ".join([json.dumps(doc["hits"])[1:-1]] * times) if doc["hits"] else ""
    assert text.count(json.dumps(marker)) == 1
    return text.replace(json.dumps(marker), f"[{hits}]").encode()


def _edit_hits(data: bytes, edit: Any) -> bytes:
    import hashlib

    src = zipfile.ZipFile(io.BytesIO(data))
    members = {n: src.read(n) for n in src.namelist()}
    name = next(n for n in members if n.endswith(".hits.json"))
    doc = json.loads(members[name])
    edited = edit(doc)  # the document changed in place, or its new text
    members[name] = edited if isinstance(edited, bytes) else json.dumps(doc).encode()
    manifest = json.loads(members["manifest.json"])
    for m in manifest["members"]:
        m["sha256"] = "sha256:" + hashlib.sha256(members[m["path"]]).hexdigest()
        m["bytes"] = len(members[m["path"]])
    members["manifest.json"] = json.dumps(manifest).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    return buf.getvalue()


def test_export_limits_are_recoverys() -> None:
    """An export its recovery would refuse for size is refused with the reason."""
    with pytest.raises(StudyExportTooLarge, match="over 8,000,000"):
        check_export({"search-runs/r.json": b" " * (MAX_SMALL_MEMBER_BYTES + 1)})
    check_export({"search-runs/r.hits.json": b" " * (MAX_SMALL_MEMBER_BYTES + 1)})
    with pytest.raises(StudyExportTooLarge, match="JSON values"):
        check_export({"search-runs/r.hits.json": b"[" + b"0," * 5_000_000 + b"0]"})
