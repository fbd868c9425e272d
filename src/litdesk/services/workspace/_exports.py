"""The Study ZIP: export (references, evidence CSV and notebook from :mod:`._evidence_files`,
runs, imports, whole searches, PDF links, screening) and import (recovery) that validates
every record and remaps links."""

from __future__ import annotations

import hashlib
import io
import json
import uuid
import zipfile
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from litdesk import __version__
from litdesk._errors import IntegrityError, LitdeskError
from litdesk.adapters.store import (
    MAX_RUN_BYTES,
    SearchRunRow,
    dump_json,
    fulltext,
    get_search_run,
    link_or_insert_run,
    put_study_form,
    repo,
    study_records,
    whole_searches,
)
from litdesk.core.evidence import (
    Annotation,
    Evidence,
    check_anchor,
    check_evidence,
    read_annotation,
    read_evidence,
)
from litdesk.core.forms import (
    Form,
    default_form,
    form_from_json,
    form_to_json,
)
from litdesk.core.records import Paper, read_paper
from litdesk.core.words import plural

from ._archive import (
    MAX_ZIP_BYTES,
    MAX_ZIP_HITS,
    MAX_ZIP_MEMBER_BYTES,
    MAX_ZIP_MEMBERS,
    JsonBudget,
    StudyExportTooLarge,
    StudyImportRefused,
    check_export,
    load_json,
    read_members,
)
from ._archive import refuse as _refuse
from ._codec import import_source, read_import, trace_document
from ._evidence_files import evidence_csv, notebook_markdown
from ._results import MAX_STUDY_NAME, _new_id, now_iso
from ._service import MAX_DESCRIPTION, Workspace
from ._summaries import RecoveredStudy
from ._whole_zip import read_whole, store_whole

__all__ = [
    "EXPORT_VERSION",
    "MAX_ZIP_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_MEMBER_BYTES",
    "StudyExportTooLarge",
    "StudyImportRefused",
    "export_study",
    "import_study",
    "ris_text",
]

EXPORT_VERSION: Final = 1
# --- RIS -----------------------------------------------------------------------------


def ris_text(papers: list[Paper]) -> str:
    from litdesk.adapters.formats import dumps

    return dumps(papers, "ris")


def _run_papers(run: dict[str, Any]) -> list[Paper]:
    """Papers of a saved run's hits (conflicted hits excluded; unreadable ones skipped)."""
    out: list[Paper] = []
    hits = run.get("hits")
    if not isinstance(hits, list):
        return out
    for hit in hits:
        if not isinstance(hit, dict) or hit.get("conflicts") or hit.get("conflict"):
            continue
        data = hit.get("paper", hit)
        try:
            out.append(read_paper(data))
        except IntegrityError:
            continue
    return out


# --- Study ZIP -------------------------------------------------------------------------


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def export_study(
    ws: Workspace,
    study: str,
    *,
    references: Sequence[Paper] | None = None,
    screening: Mapping[str, bytes] | None = None,
) -> bytes:
    """The Study as a ZIP: references.ris, evidence.csv, notebook.md, study.json (every
    record, for recovery), search-runs/*.json and *.ris, imports/*.json and a manifest
    with versions and the sha256 of every member. Read from one snapshot of the store,
    so a write landing meanwhile cannot make the ZIP disagree with itself.

    ``references`` (the Study's working set: one merged record per study) is what
    references.ris holds; without it, the Study's saved papers. ``screening``: each stage's
    decisions as litdesk's decisions CSV by stage (``title_abstract``, ``full_text``), kept
    as ``screening/<stage>.csv``, the settings and the review mode (``settings``, ``review``:
    ``screening/<part>.json``) and the whole history (``history``: ``screening/history.csv``)."""
    with ws.snapshot():
        return _export_study(ws, study, references, screening or {})


def _export_study(
    ws: Workspace,
    study: str,
    references: Sequence[Paper] | None,
    screening: Mapping[str, bytes],
) -> bytes:
    s = ws.study(study)
    rows = ws.papers(study=s.id, limit=None)  # every paper: the ZIP is the recovery format
    papers = [r.paper for r in rows]
    notes, note_problems = ws.notes(study=s.id)
    evidence, ev_problems = ws.evidence(study=s.id)
    summary = ws.study_summary(s.id, limit=0)  # its runs and imports (the papers are ``rows``)
    members: dict[str, bytes] = {}
    refs = list(references) if references is not None else papers
    members["references.ris"] = ris_text(refs).encode("utf-8")
    form = ws.form(s.id)
    members["evidence.csv"] = evidence_csv(evidence, form).encode("utf-8")
    members["notebook.md"] = notebook_markdown(s.name, papers, notes, evidence, form).encode(
        "utf-8"
    )
    members["form.json"] = json.dumps(form_to_json(form), ensure_ascii=False, indent=1).encode(
        "utf-8"
    )
    bundle = {
        "version": EXPORT_VERSION,
        "study": {
            "id": s.id,
            "name": s.name,
            "description": s.description,
            "created_at": s.created_at,
        },
        "papers": [{"paper": r.paper.to_dict(), "status": r.status} for r in rows],
        "notes": [{"id": n.id, "annotation": n.annotation.model_dump(mode="json")} for n in notes],
        "evidence": [
            {"id": e.id, "evidence": e.evidence.model_dump(mode="json")} for e in evidence
        ],
        "search_runs": list(summary.search_runs),
        "imports": list(summary.imports),
    }
    members["study.json"] = json.dumps(bundle, ensure_ascii=False, indent=1).encode("utf-8")
    with ws._reading() as conn:  # a whole search's round (its hits are read per run)
        rounds = {r.run_id: r for r in whole_searches.list_rounds(conn, s.id)}
        # when each kept run joined the Study: the round it counts in (StudyRounds)
        joined = {x.id: x.at for x in study_records.study_sources(conn, s.id) if x.kind == "run"}
    for run_id in summary.search_runs:
        run = get_search_run(ws.store, run_id)
        if run_id in rounds:
            _whole_members(ws, rounds[run_id], members)
            continue
        doc = {
            "version": 1,
            "id": run.id,
            "owner": run.owner,
            "definition": run.definition,
            "run": run.run,
            "created_at": run.created_at,
            "executed_at": run.executed_at,
            "joined_at": joined.get(run_id, run.executed_at),
        }
        members[f"search-runs/{run_id}.json"] = dump_json(doc).encode("utf-8")
        members[f"search-runs/{run_id}.ris"] = ris_text(_run_papers(run.run)).encode("utf-8")
    for imp_id, member in ws.import_members(study=s.id):
        members[f"imports/{imp_id}.json"] = member
    with ws._reading() as conn:  # which library PDF is which paper's (by content hash)
        links = sorted(fulltext.pdf_links(conn, s.id).values(), key=lambda r: r.paper_id)
    members[PDF_LINKS] = json.dumps(
        [
            {"paper_id": r.paper_id, "sha256": r.sha256, "file": r.file, "how": r.how,
             "detail": r.detail, "state": r.state, "at": r.at}
            for r in links
        ],
        ensure_ascii=False,
        indent=1,
    ).encode("utf-8")  # fmt: skip
    for part, body in screening.items():  # a stage's decisions CSV, or the settings
        json_part = part in ("settings", "review")
        members[f"screening/{part}.json" if json_part else f"screening/{part}.csv"] = body
    check_export(members)  # what recovery would refuse for its size is refused here
    manifest = {
        "version": EXPORT_VERSION,
        "kind": "litdesk-study",
        "litdesk": __version__,
        "exported_at": now_iso(),
        "schemas": {
            "paper": 1,
            "annotation": 1,
            "evidence": 1,
            "study": 1,
            "search_run": 1,
            "import": 1,
        },
        "problems": note_problems + ev_problems,
        "members": [
            {"path": path, "bytes": len(data), "sha256": _sha(data)}
            for path, data in sorted(members.items())
        ],
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, data in sorted(members.items()):
            zf.writestr(
                zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)),
                data,
                compress_type=zipfile.ZIP_DEFLATED,
            )
        zf.writestr("manifest.json", json.dumps(manifest, indent=1).encode("utf-8"))
    return buf.getvalue()


def _whole_members(ws: Workspace, rnd: whole_searches.RoundRow, members: dict[str, bytes]) -> None:
    """A whole search's members: its run (no hits, as stored), its hits (each the run
    hit's document: the record, its lanes and ranks) with its round, and its RIS."""
    run = get_search_run(ws.store, rnd.run_id)
    with ws._reading() as conn:
        hits = [h.data for h in whole_searches.run_hits(conn, rnd.run_id)]
    if len(hits) > MAX_ZIP_HITS:
        raise StudyExportTooLarge(
            f"the whole search {rnd.run_id!r} has {len(hits):,} records, over the "
            f"{MAX_ZIP_HITS:,} a Study's ZIP carries per search"
        )
    doc = {
        "version": 1,
        "id": run.id,
        "owner": run.owner,
        "definition": run.definition,
        "run": run.run,
        "created_at": run.created_at,
        "executed_at": run.executed_at,
    }
    rnd_doc = {"round": rnd.round, "kind": rnd.kind, "cap": rnd.cap,
               "created_at": rnd.created_at, "report": rnd.report}  # fmt: skip
    members[f"search-runs/{run.id}.json"] = dump_json(doc).encode("utf-8")
    members[f"search-runs/{run.id}.hits.json"] = dump_json(
        {"version": 1, "run_id": run.id, "round": rnd_doc, "hits": hits}
    ).encode("utf-8")
    members[f"search-runs/{run.id}.ris"] = ris_text(_run_papers({"hits": hits})).encode("utf-8")


def _check_manifest(members: dict[str, bytes], budget: JsonBudget) -> None:
    if "manifest.json" not in members or "study.json" not in members:
        raise _refuse("not a litdesk Study export (manifest.json or study.json missing)")
    manifest = load_json(members["manifest.json"], "manifest.json", budget)
    if not isinstance(manifest, dict) or manifest.get("kind") != "litdesk-study":
        raise _refuse("manifest.json is not a litdesk Study manifest")
    if manifest.get("version") != EXPORT_VERSION:
        raise _refuse(f"unsupported Study export version {manifest.get('version')!r}")
    listed = manifest.get("members")
    if not isinstance(listed, list):
        raise _refuse("manifest.json lists no members")
    seen = set()
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise _refuse("manifest.json has a malformed member entry")
        path = item["path"]
        if path not in members:
            raise _refuse(f"member {path[:100]!r} listed in the manifest is missing")
        if item.get("sha256") != _sha(members[path]):
            raise _refuse(f"member {path!r} does not match its sha256", "digest_mismatch")
        seen.add(path)
    extra = set(members) - seen - {"manifest.json"}
    if extra:
        raise _refuse(f"member {sorted(extra)[0]!r} is not listed in the manifest")


#: the ZIP member naming which library PDF (by SHA-256) is which paper's
PDF_LINKS: Final = "pdf-links.json"
_SHA256 = frozenset("0123456789abcdef")


def _pdf_links(
    data: object, papers: dict[str, tuple[Paper, str | None]], errors: list[str]
) -> list[dict[str, str]]:
    """The export's PDF links, each checked (its paper in the bundle, a SHA-256, a known
    state); a bad one is an error like any bad record."""
    if not isinstance(data, list):
        errors.append(f"{PDF_LINKS}: not a list")
        return []
    out: list[dict[str, str]] = []
    for i, item in enumerate(data):
        link = item if isinstance(item, dict) else {}
        values = {k: link.get(k) for k in ("paper_id", "sha256", "file", "how", "detail", "state")}
        sha = values["sha256"]
        if not all(isinstance(v, str) for v in values.values()):
            errors.append(f"PDF link {i}: malformed")
        elif values["paper_id"] not in papers:
            errors.append(f"PDF link {i}: names a paper which is not in the bundle")
        elif not (isinstance(sha, str) and len(sha) == 64 and set(sha) <= _SHA256):
            errors.append(f"PDF link {i}: not a SHA-256")
        elif values["state"] not in fulltext.LINK_STATES:
            errors.append(f"PDF link {i}: unknown state")
        else:
            out.append({k: str(v)[:300] for k, v in values.items()})
    return out


def _validate_bundle(members: dict[str, bytes], budget: JsonBudget) -> dict[str, Any]:
    """Every record validated before anything is stored; returns the parsed pieces."""
    bundle = load_json(members["study.json"], "study.json", budget)
    if not isinstance(bundle, dict) or bundle.get("version") != EXPORT_VERSION:
        raise _refuse("study.json is not a version 1 Study bundle")
    study = bundle.get("study")
    if not isinstance(study, dict) or not isinstance(study.get("name"), str):
        raise _refuse("study.json has no Study name")
    name = " ".join(study["name"].split())
    description = study.get("description")
    if not name or len(name) > MAX_STUDY_NAME:
        raise _refuse(f"study.json: the Study name must be 1 to {MAX_STUDY_NAME} characters")
    if description is not None and (
        not isinstance(description, str) or len(description) > MAX_DESCRIPTION
    ):
        raise _refuse(f"study.json: the description must be text of at most {MAX_DESCRIPTION:,}")
    study = {"name": name, "description": description}
    for key in ("papers", "notes", "evidence", "search_runs", "imports"):
        if not isinstance(bundle.get(key), list):
            raise _refuse(f"study.json: {key} must be a list")
    errors: list[str] = []
    papers: dict[str, tuple[Paper, str | None]] = {}
    for i, item in enumerate(bundle["papers"]):
        try:
            if not isinstance(item, dict):
                raise IntegrityError("not an object")
            p = read_paper(item.get("paper"))
            status = item.get("status")
            if status is not None and status not in repo.READING_STATUSES:
                raise IntegrityError(f"unknown reading status {str(status)[:20]!r}")
            papers[p.id] = (p, status)
        except LitdeskError as exc:
            errors.append(f"paper {i}: {exc.message}")
    notes: list[Annotation] = []
    for i, item in enumerate(bundle["notes"]):
        try:
            note = read_annotation(item.get("annotation") if isinstance(item, dict) else None)
            if note.paper_id not in papers:
                raise IntegrityError(f"names paper {note.paper_id}, which is not in the bundle")
            if note.anchor is not None:
                check_anchor(note.anchor, papers[note.paper_id][0])
            notes.append(note)
        except LitdeskError as exc:
            errors.append(f"note {i}: {exc.message}")
    evidence: list[Evidence] = []
    for i, item in enumerate(bundle["evidence"]):
        try:
            ev = read_evidence(item.get("evidence") if isinstance(item, dict) else None)
            if ev.paper_id not in papers:
                raise IntegrityError(f"names paper {ev.paper_id}, which is not in the bundle")
            check_evidence(ev, papers[ev.paper_id][0])
            evidence.append(ev)
        except LitdeskError as exc:
            errors.append(f"evidence {i}: {exc.message}")
    runs: list[dict[str, Any]] = []
    for run_id in bundle["search_runs"]:
        body = members.get(f"search-runs/{run_id}.json") if isinstance(run_id, str) else None
        doc = load_json(body, "a search run", budget) if body is not None else None
        if (
            not isinstance(doc, dict)
            or doc.get("version") != 1
            or doc.get("id") != run_id
            or not isinstance(doc.get("definition"), dict)
            or not isinstance(doc.get("run"), dict)
            or not isinstance(doc.get("owner"), str)
            or not isinstance(doc.get("executed_at"), str)
            or not _iso_or_none(doc.get("joined_at"))
            or len(body or b"") > 3 * MAX_RUN_BYTES
        ):
            errors.append(f"search run {str(run_id)[:100]!r}: missing or malformed")
            continue
        hits_body = members.get(f"search-runs/{run_id}.hits.json")
        if hits_body is not None:  # a whole search (exports since issue 27's zipfix)
            try:
                doc = doc | {"whole": read_whole(doc, load_json(hits_body, "a run's hits", budget))}
            except LitdeskError as exc:
                errors.append(f"search run {str(run_id)[:100]!r}: {exc.message}")
                continue
        runs.append(doc)
    listed = {f"search-runs/{r}.hits.json" for r in bundle["search_runs"] if isinstance(r, str)}
    for name in sorted(n for n in members if n.endswith(".hits.json") and n not in listed):
        errors.append(f"{name[:120]!r}: the hits of a search run study.json does not list")
    traces = []
    for imp_id in bundle["imports"]:
        body = members.get(f"imports/{imp_id}.json") if isinstance(imp_id, str) else None
        try:
            if body is None:
                raise IntegrityError("missing")
            data = load_json(body, "an import trace", budget)
            traces.append((*read_import(data), import_source(data)))
        except LitdeskError as exc:
            errors.append(f"import {str(imp_id)[:100]!r}: {exc.message}")
    pdf_links: list[dict[str, str]] = []
    if PDF_LINKS in members:  # the papers' PDF links (exports since issue 27)
        pdf_links = _pdf_links(load_json(members[PDF_LINKS], PDF_LINKS, budget), papers, errors)
    form: Form | None = None
    if "form.json" in members:  # the Study's extraction form (exports since issue 27)
        try:
            form = form_from_json(load_json(members["form.json"], "form.json", budget))
        except LitdeskError as exc:
            errors.append(f"form.json: {exc.message}")
    if errors:
        shown = "; ".join(errors[:5]) + (f" (+{len(errors) - 5} more)" if len(errors) > 5 else "")
        raise StudyImportRefused(
            f"{plural(len(errors), 'record')} failed validation: {shown}",
            code="invalid_records",
            errors=errors,
        )
    return {
        "study": study,
        "papers": papers,
        "notes": notes,
        "evidence": evidence,
        "runs": runs,
        "traces": traces,
        "form": form,
        "pdf_links": pdf_links,
    }


def _iso_or_none(value: object) -> bool:
    """A run's ``joined_at``: absent (exports before it) or an ISO time of at most 40."""
    if value is None:
        return True
    if not isinstance(value, str) or len(value) > 40:
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _parse(data: bytes) -> dict[str, Any]:
    """The archive read and every record validated, within the bounds of ``_archive``;
    whatever else the runtime raises on crafted content is the same typed refusal."""
    budget = JsonBudget()
    try:
        members = read_members(data)
        _check_manifest(members, budget)
        parsed = _validate_bundle(members, budget)
        parsed["screening"] = {  # read by the screening area, which checks every row
            name.removeprefix("screening/").removesuffix(".csv").removesuffix(".json"): body
            for name, body in members.items()
            if name.startswith("screening/")
        }
        return parsed
    except LitdeskError:
        raise
    except RecursionError:
        raise _refuse("the Study export nests too deeply", "too_deep") from None
    except MemoryError:
        raise _refuse("the Study export needs more memory than is available", "too_large") from None
    except Exception as exc:  # noqa: BLE001 - the one total mapping: crafted content is the input's fault
        raise _refuse(
            f"the Study export could not be read ({str(exc)[:200] or 'no reason given'})",
            "malformed",
        ) from None


def import_study(
    ws: Workspace,
    data: bytes,
    *,
    name: str | None = None,
    pdfs: Callable[[], set[str]] | None = None,
) -> RecoveredStudy:
    """Recover a Study from its ZIP export: refuse unsafe or invalid input as a whole,
    then store it in one transaction as a new Study, remapping paper ids to the saved
    identities and giving notes, evidence, imports and search runs fresh ids, all owned
    by the importer (nothing existing is linked by an id the ZIP names). ``pdfs`` answers the
    SHA-256 of the library's PDFs: the export's PDF links whose PDF is there are restored
    (the others are counted as missing)."""
    parsed = _parse(data)
    study_name = " ".join((name or parsed["study"]["name"]).split())[:MAX_STUDY_NAME]
    if not study_name:
        raise _refuse("the recovered Study needs a name")
    now = now_iso()
    remap: dict[str, str] = {}
    present = pdfs() if pdfs is not None and parsed["pdf_links"] else set()
    restored = 0
    with ws.store.write() as conn:
        taken = repo.owned_study_names(conn, ws.owner)  # names are unique per owner
        base, n = study_name[: MAX_STUDY_NAME - 20], 2
        while study_name in taken:
            study_name, n = f"{base} (recovered {n - 1})", n + 1
        study = repo.insert_study(
            conn,
            _new_id("study"),
            study_name,
            parsed["study"]["description"],
            now,
            owner=ws.owner,
        )
        given = list(parsed["papers"].items())
        saved = ws._save_all(conn, [paper for _old, (paper, _status) in given], now)
        for (old_id, (_paper, status)), result in zip(given, saved, strict=True):
            remap[old_id] = result.paper.id
            if status is not None:
                repo.set_status(conn, result.paper.id, status, now, status_of=ws.owner)
        repo.add_study_papers(conn, study.id, list(remap.values()), now, paper_owner=ws.owner)
        for note in parsed["notes"]:
            data_ = note.model_dump(mode="json") | {"paper_id": remap[note.paper_id]}
            repo.insert_document(
                conn,
                "notes",
                _new_id("note"),
                read_annotation(data_).model_dump(mode="json"),
                now,
                paper_id=remap[note.paper_id],
                study_id=study.id,
                owner=ws.owner,
            )
        for ev in parsed["evidence"]:
            data_ = ev.model_dump(mode="json") | {"paper_id": remap[ev.paper_id]}
            repo.insert_document(
                conn,
                "evidence",
                _new_id("ev"),
                read_evidence(data_).model_dump(mode="json"),
                now,
                paper_id=remap[ev.paper_id],
                study_id=study.id,
                owner=ws.owner,
            )
        for doc in parsed["runs"]:
            # re-created under the importer with a fresh id: a ZIP never links an
            # existing run by its id, nor names who owns what it carries
            run_id = uuid.uuid4().hex
            if "whole" in doc:  # a whole search: its run, hits and round, by the importer
                store_whole(conn, doc, run_id, study.id, ws.owner, remap)
                continue
            row = SearchRunRow(
                id=run_id,
                owner=ws.owner,
                definition=doc["definition"],
                run=doc["run"] | {"id": run_id},
                created_at=str(doc.get("created_at") or now),
                executed_at=doc["executed_at"],
            )
            if not link_or_insert_run(conn, row):
                raise _refuse("a recovered search run's fresh id is taken; try again")
            # its original join time keeps it in its round (exports before 0030: the run's)
            joined_at = str(doc.get("joined_at") or doc["executed_at"])
            repo.add_study_search_run(conn, study.id, run_id, at=joined_at)
        form = parsed["form"]
        if form is not None and form.fields != default_form().fields:
            put_study_form(conn, study.id, form, by=ws.owner, now=now)
        for link in parsed["pdf_links"]:
            if link["sha256"] in present:
                fulltext.put_pdf_link(
                    conn,
                    fulltext.PdfLinkRow(
                        study.id, remap[link["paper_id"]], link["sha256"], link["file"],
                        link["how"], link["detail"], fulltext.read_state(link["state"]),
                        ws.owner, now,
                    ),
                )  # fmt: skip
                restored += 1
        for trace, ids, source in parsed["traces"]:
            new_ids = [remap.get(i) if i else None for i in ids]  # only the ZIP's own papers
            repo.insert_document(
                conn,
                "imports",
                _new_id("imp"),
                trace_document(trace, new_ids, source),
                now,
                study_id=study.id,
                extra={"sha256": trace.source.sha256, "format": trace.source.format[:40]},
                owner=ws.owner,
            )
    return RecoveredStudy(
        study_id=study.id,
        name=study.name,
        papers=len(parsed["papers"]),
        notes=len(parsed["notes"]),
        evidence=len(parsed["evidence"]),
        search_runs=len(parsed["runs"]),
        imports=len(parsed["traces"]),
        pdf_links=restored,
        pdf_links_missing=len(parsed["pdf_links"]) - restored,
        remapped={k: v for k, v in remap.items() if k != v},
        screening=parsed["screening"],
    )
