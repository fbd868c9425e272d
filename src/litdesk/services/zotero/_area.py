"""The Zotero bridge as one area of the app (``app.zotero``).

:meth:`ZoteroArea.import_library` reads a Zotero data directory offline (a private
read-only copy; see :mod:`litdesk.adapters.zotero`) and makes Studies of its collections
(or one Study), papers of its items, notes of their child notes, and puts their PDFs into
the PDF library attached to their papers. Each imported item and note keeps its Zotero
library and key (the store's ``zotero_links``): importing again adds new items, updates
changed ones (by version and ``dateModified``), reports removed and moved ones, and never
makes a second paper or note of one item.

Papers, Studies and notes are written through the workspace (the store-level repository
of saved papers, Studies and notes) acting as ``owner``, so every right of team mode
applies; the identity links and changed papers are written last, in one transaction.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx

from litdesk._errors import InputError, LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.store import Store
from litdesk.adapters.zotero import (
    ZoteroLibrary,
    default_data_dir,
    read_library,
    resolve_attachment,
)
from litdesk.adapters.zotero._links import ZoteroLink, read_links, write_links
from litdesk.adapters.zotero._web import LOCAL_API, WEB_API, Sleep, ZoteroWebClient
from litdesk.core.evidence import MAX_COMMENT_CHARS
from litdesk.core.records import Paper, PaperError, make_paper, read_paper
from litdesk.core.zotero import ZoteroItem, ZoteroNote, item_paper_fields, note_text
from litdesk.services.files import write_output
from litdesk.services.library import Library
from litdesk.services.workspace import IdentityConflict, SaveResult, Workspace

from ._pdfs import PdfPlacer
from ._push import link_library, make_plan, push_api, ris_file
from ._requests import MAX_NAME_CHARS, ZoteroImportRequest, ZoteroPushRequest
from ._views import (
    ItemProblem,
    ItemRef,
    MovedItem,
    PushPlanView,
    PushView,
    StudyCount,
    ZoteroImportView,
)

__all__ = ["UNFILED_STUDY", "WHOLE_LIBRARY_STUDY", "UnknownCollection", "ZoteroArea"]

UNFILED_STUDY: Final = "Zotero (unfiled)"
WHOLE_LIBRARY_STUDY: Final = "Zotero"
_IDENTIFIERS: Final = ("doi", "pmid", "pmcid", "arxiv_id")


class UnknownCollection(NotFoundError):
    """A collection named in the request is not in the library (the message lists the
    collections there are)."""

    default_code = "zotero_unknown_collection"


@dataclass
class _Plan:
    """Which items go into which Study name (in the library's order)."""

    studies: dict[str, list[ZoteroItem]] = field(default_factory=dict)


def _descendants(lib: ZoteroLibrary, key: str) -> list[str]:
    children: dict[str | None, list[str]] = defaultdict(list)
    for c in lib.collections:
        children[c.parent_key].append(c.key)
    out, todo = [], [key]
    while todo:
        k = todo.pop()
        if k in out:
            continue
        out.append(k)
        todo.extend(children.get(k, ()))
    return out


def _paths(lib: ZoteroLibrary) -> dict[str, str]:
    """Each collection's Study name as a path (``Parent / Child``)."""
    by_key = {c.key: c for c in lib.collections}
    out: dict[str, str] = {}
    for c in lib.collections:
        names, seen, cur = [c.name], {c.key}, c
        while cur.parent_key is not None and cur.parent_key in by_key:
            cur = by_key[cur.parent_key]
            if cur.key in seen:
                break  # a cycle in a damaged database
            seen.add(cur.key)
            names.append(cur.name)
        out[c.key] = " / ".join(reversed(names))[:MAX_NAME_CHARS]
    return out


def _split_plan(lib: ZoteroLibrary, roots: list[str]) -> _Plan:
    """Every collection under ``roots`` its own Study of its own items."""
    by_key = {i.key: i for i in lib.items}
    paths = _paths(lib)
    plan = _Plan()
    for root in roots:
        for key in _descendants(lib, root):
            items = [by_key[k] for k in lib.collection_items.get(key, ()) if k in by_key]
            if items:
                plan.studies.setdefault(paths[key], []).extend(items)
    return plan


def _plan(lib: ZoteroLibrary, request: ZoteroImportRequest) -> _Plan:
    by_key = {i.key: i for i in lib.items}
    plan = _Plan()
    if request.sub_studies:
        if request.collections:
            _check_names(lib, request.collections)
            roots = [c.key for c in lib.collections if c.name in request.collections]
        else:
            roots = [c.key for c in lib.collections if c.parent_key is None]
        plan = _split_plan(lib, roots)
        unfiled = [i for i in lib.items if not i.collections]
        if unfiled and not request.collections:
            plan.studies[UNFILED_STUDY] = unfiled
        return plan

    def members(collection_key: str) -> list[ZoteroItem]:
        keys: dict[str, None] = {}
        for k in _descendants(lib, collection_key):
            keys.update(dict.fromkeys(lib.collection_items.get(k, ())))
        return [by_key[k] for k in keys if k in by_key]

    if request.collections:
        by_name = _check_names(lib, request.collections)
        for name in request.collections:
            items: dict[str, ZoteroItem] = {}
            for key in by_name[name]:
                items.update((i.key, i) for i in members(key))
            target = request.study or name
            have = {i.key for i in plan.studies.get(target, [])}
            plan.studies.setdefault(target, []).extend(i for k, i in items.items() if k not in have)
        return plan
    if request.study is not None or not lib.collections:
        plan.studies[request.study or WHOLE_LIBRARY_STUDY] = list(lib.items)
        return plan
    for c in lib.collections:
        if c.parent_key is None:
            plan.studies[c.name] = members(c.key)
    unfiled = [i for i in lib.items if not i.collections]
    if unfiled:
        plan.studies[UNFILED_STUDY] = unfiled
    return plan


def _check_names(lib: ZoteroLibrary, names: tuple[str, ...]) -> dict[str, list[str]]:
    """``{collection name: keys}``; :class:`UnknownCollection` for a name not there."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for c in lib.collections:
        by_name[c.name].append(c.key)
    unknown = [n for n in names if n not in by_name]
    if unknown:
        there = ", ".join(sorted(by_name)) or "(the library has no collections)"
        raise UnknownCollection(
            f"no collection {', '.join(unknown)} in the Zotero library; it has: {there}",
            unknown=unknown,
        )
    return by_name


def _note_chunks(text: str) -> list[str]:
    """A note's text in comments litdesk keeps (at most MAX_COMMENT_CHARS each)."""
    room = MAX_COMMENT_CHARS - 40
    if len(text) <= MAX_COMMENT_CHARS:
        return [text]
    parts = [text[i : i + room] for i in range(0, len(text), room)]
    return [f"(Zotero note, part {n} of {len(parts)})\n{p}" for n, p in enumerate(parts, 1)]


def _updated(old: Paper, new: Paper) -> Paper:
    """``old`` with the changed Zotero item's values (identifiers may be added, never
    changed: a different one is refused as an identity conflict); keywords are the union
    (other sources' keywords stay beside the item's tags)."""
    for name in _IDENTIFIERS:
        a, b = getattr(old, name), getattr(new, name)
        if a and b and a != b:
            raise IdentityConflict(
                f"{name} changed in Zotero ({a} → {b}); the paper {old.id} was not updated",
                field=name,
            )
    data = old.to_dict()
    for key, value in new.to_dict().items():
        if key in ("id", "version", "retrieved_at", "abstract_source"):
            continue
        if key == "keywords" and isinstance(value, list):
            current = data.get("keywords") or []
            data[key] = [*current, *(v for v in value if v not in current)]
        elif value not in (None, "", []):
            data[key] = value
    return read_paper(data)


class ZoteroArea:
    """The Zotero bridge's use cases (see the module docstring); one per app."""

    def __init__(
        self,
        *,
        store: Store,
        pdfs: Library,
        http_transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        """``http_transport`` and ``sleep``: test hooks of the Zotero API writes."""
        self._store = store
        self._pdfs = pdfs
        self._http = http_transport
        self._sleep = sleep

    def plan_push(self, request: ZoteroPushRequest, *, owner: str) -> PushPlanView:
        """What :meth:`push` would write (nothing is sent or written)."""
        return make_plan(self._store, request, owner=owner)[0]

    async def push(self, request: ZoteroPushRequest, *, owner: str, confirm: bool) -> PushView:
        """Write the plan of :meth:`plan_push` — only with ``confirm`` (the person saw the
        plan, or ``--yes``): to the RIS file, or through the Zotero API."""
        plan, papers = make_plan(self._store, request, owner=owner)
        if not confirm:
            raise RefusedError(
                "nothing is written to Zotero without a confirmation (see the plan; --yes)",
                code="zotero_unconfirmed",
            )
        if request.ris_path is not None:
            links = read_links(self._store, owner=owner, library=link_library(None))
            text = ris_file(plan, papers, links)
            path = write_output(request.ris_path, text, force=True)
            notes = sum(len(i.notes) for i in plan.items)
            return PushView(plan, len(plan.items), notes, str(path))
        assert request.library is not None  # the request's rule: a file or a library
        client = ZoteroWebClient(
            library=request.library,
            api_key=request.api_key,
            base=LOCAL_API if request.local else WEB_API,
            transport=self._http,
            sleep=self._sleep,
        )
        items, notes = await push_api(
            self._store, plan, client, owner=owner, library=link_library(request.library)
        )
        return PushView(plan, items, notes, None)

    def import_library(self, request: ZoteroImportRequest, *, owner: str) -> ZoteroImportView:
        """Import (or import again) a Zotero library into Studies (see the module
        docstring)."""
        data_dir = Path(request.data_dir) if request.data_dir else default_data_dir()
        base_dir = Path(request.base_dir).expanduser() if request.base_dir else None
        if base_dir is not None and not base_dir.is_dir():
            raise InputError(f"no such base directory: {base_dir}", code="zotero_bad_path")
        lib = read_library(data_dir, group=request.group)
        plan = _plan(lib, request)
        links = read_links(self._store, owner=owner, library=lib.library)
        ws = Workspace(self._store, owner=owner)
        problems: list[ItemProblem] = []
        new_links: dict[str, ZoteroLink] = {}
        changed: list[Paper] = []
        papers_of: dict[str, Paper] = {}
        added = updated = unchanged = 0
        saved_keys: set[str] = set()
        unchanged_keys: set[str] = set()
        studies: list[StudyCount] = []
        for name, items in plan.studies.items():
            created = False
            try:
                study = ws.study(name, "write")
            except NotFoundError:
                study = ws.create_study(name, "Imported from Zotero")
                created = True
            to_save: list[Paper] = []
            for item in items:
                if item.key in papers_of:  # in two Studies: saved once, linked to both
                    to_save.append(papers_of[item.key])
                    continue
                link = links.get(item.key)
                fields: dict[str, Any] = item_paper_fields(item)
                try:
                    paper = make_paper(fallback_key=f"zotero:{lib.library}:{item.key}", **fields)
                except PaperError as exc:
                    problems.append(ItemProblem(item.key, item.title, exc.message))
                    continue
                if link is not None and link.kind == "item":
                    try:
                        old = ws.paper(link.target).paper
                    except NotFoundError:
                        link = None  # the paper was deleted in litdesk: import it again
                    else:
                        if link.same_version(item.version, item.date_modified):
                            unchanged += 1
                            unchanged_keys.add(item.key)
                            paper = old
                        else:
                            try:
                                paper = _updated(old, paper.model_copy(update={"id": old.id}))
                            except IdentityConflict as exc:
                                problems.append(ItemProblem(item.key, item.title, exc.message))
                                paper = old
                            else:
                                changed.append(paper)
                                updated += 1
                if link is None:
                    added += 1
                papers_of[item.key] = paper
                to_save.append(paper)
            pairs: list[tuple[Paper, SaveResult]] = []
            try:
                pairs = list(zip(to_save, ws.save_papers(to_save, study=study.id), strict=True))
            except IdentityConflict:
                for paper in to_save:  # one by one: only the conflicting ones are left out
                    try:
                        pairs.append((paper, ws.save_papers([paper], study=study.id)[0]))
                    except IdentityConflict as one:
                        problems.append(ItemProblem("", paper.title, one.message))
            # a new record may have merged into a paper saved before (same DOI, …)
            saved = {id(sent): result.paper for sent, result in pairs}
            for item in items:
                sent_paper = papers_of.get(item.key)
                if sent_paper is not None and id(sent_paper) in saved:
                    papers_of[item.key] = saved[id(sent_paper)]
                    saved_keys.add(item.key)
                elif item.key not in saved_keys:
                    papers_of.pop(item.key, None)  # not saved: no link is made
            saved_ids = {result.paper.id for _, result in pairs}
            studies.append(StudyCount(study.id, study.name, len(saved_ids), created))

        items_done = {i.key: i for items in plan.studies.values() for i in items}
        study_of: dict[str, str] = {}
        for name, items in plan.studies.items():
            for i in items:
                study_of.setdefault(i.key, name)
        notes_added = notes_unchanged = notes_changed = 0
        for item in items_done.values():
            linked = papers_of.get(item.key)
            if linked is None:
                continue
            new_links[item.key] = ZoteroLink(
                lib.library,
                item.key,
                "item",
                linked.id,
                item.version,
                item.date_modified,
                tuple(item.collections),
                item.title,
                tuple(item.tags),
            )
            study_name = study_of[item.key]
            for note in item.notes:
                n_added, n_link, problem = self._note(ws, note, linked, study_name, links, lib)
                if problem is not None:
                    problems.append(ItemProblem(item.key, item.title, problem))
                if n_link is not None:
                    new_links[note.key] = n_link
                notes_added += n_added
                notes_unchanged += 1 if n_added == 0 and problem is None else 0
                old_note = links.get(note.key)
                if n_added and old_note is not None and old_note.kind == "note":
                    notes_changed += 1
        if lib.standalone_notes:
            problems.append(
                ItemProblem(
                    "",
                    "standalone notes",
                    f"{len(lib.standalone_notes)} standalone note(s) not imported: a litdesk "
                    "note belongs to a paper",
                )
            )
        pdfs = caches = 0
        if request.pdfs:
            pdfs, caches = self._place_pdfs(
                lib, items_done, papers_of, base_dir, problems, unchanged_keys
            )
        write_links(self._store, list(new_links.values()), owner=owner, changed=changed)
        current = {i.key for i in lib.items}
        removed = tuple(
            ItemRef(k, link.title)
            for k, link in sorted(links.items())
            if link.kind == "item" and k not in current
        )
        moved = tuple(
            MovedItem(i.key, i.title, links[i.key].collections, tuple(i.collections))
            for i in lib.items
            if i.key in links
            and links[i.key].kind == "item"
            and set(links[i.key].collections) != set(i.collections)
        )
        return ZoteroImportView(
            data_dir=str(data_dir),
            library=lib.library,
            schema_version=lib.userdata,
            items_read=len(lib.items),
            added=added,
            updated=updated,
            unchanged=unchanged,
            trashed_left_out=lib.trashed,
            studies=tuple(studies),
            removed=removed,
            moved=moved,
            notes_added=notes_added,
            notes_unchanged=notes_unchanged,
            notes_changed=notes_changed,
            pdfs_attached=pdfs,
            full_text_caches=caches,
            problems=tuple(problems),
        )

    def _note(
        self,
        ws: Workspace,
        note: ZoteroNote,
        paper: Paper,
        study: str,
        links: dict[str, ZoteroLink],
        lib: ZoteroLibrary,
    ) -> tuple[int, ZoteroLink | None, str | None]:
        """Add a child note (again only when it changed): ``(notes added, link, problem)``."""
        old = links.get(note.key)
        if old is not None and old.kind == "pushed":
            return 0, old, None  # a note litdesk wrote to Zotero: it is litdesk's already
        if old is not None and old.same_version(note.version, note.date_modified):
            return 0, old, None
        text = note_text(note.html)
        if not text:
            return 0, None, f"note {note.key} is empty once reduced to text"
        ids = []
        try:
            for chunk in _note_chunks(text):
                ids.append(ws.add_note(paper.id, comment=chunk, study=study).id)
        except LitdeskError as exc:
            return len(ids), None, f"note {note.key}: {exc.message}"
        link = ZoteroLink(
            lib.library, note.key, "note", ",".join(ids), note.version, note.date_modified
        )
        return len(ids), link, None

    def _place_pdfs(
        self,
        lib: ZoteroLibrary,
        items: dict[str, ZoteroItem],
        papers_of: dict[str, Paper],
        base_dir: Path | None,
        problems: list[ItemProblem],
        unchanged: set[str],
    ) -> tuple[int, int]:
        placer = PdfPlacer(self._pdfs, lib.library)
        placed = caches = 0
        for item in items.values():
            paper = papers_of.get(item.key)
            if paper is None:
                continue
            for att in item.attachments:
                found = resolve_attachment(lib.data_dir, att, base_dir=base_dir)
                if found.problem is not None or found.path is None:
                    problem = found.problem or "no file"
                    problems.append(ItemProblem(item.key, item.title, f"{att.key}: {problem}"))
                    continue
                try:
                    placer.place(
                        found.path, att.key, item.key, paper, fresh=item.key not in unchanged
                    )
                except (OSError, LitdeskError) as exc:
                    reason = exc.message if isinstance(exc, LitdeskError) else exc.strerror
                    problems.append(ItemProblem(item.key, item.title, f"{att.key}: {reason}"))
                    continue
                placed += 1
                caches += 1 if found.full_text is not None else 0
        placer.finish()
        return placed, caches
