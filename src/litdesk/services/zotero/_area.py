"""The Zotero bridge as one area of the app (``app.zotero``).

:meth:`ZoteroArea.import_library` reads a Zotero data directory offline (a private
read-only copy; see :mod:`litdesk.adapters.zotero`) and makes Studies of its collections
(or one Study), papers of its items, notes of their child notes (and of standalone notes
related to an imported item: a note of the first such item by key), and puts their PDFs into
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
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Final

import httpx
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.store import Store, sources_changed
from litdesk.adapters.zotero import (
    ZoteroLibrary,
    default_data_dir,
    read_library,
    resolve_attachment,
)
from litdesk.adapters.zotero._links import (
    ZoteroLink,
    add_study_items,
    read_links,
    write_links_in,
)
from litdesk.adapters.zotero._web import LOCAL_API, WEB_API, Sleep, ZoteroWebClient
from litdesk.adapters.zotero._webread import ZoteroWebReader
from litdesk.core.evidence import MAX_COMMENT_CHARS
from litdesk.core.records import Paper, PaperError, make_paper, read_paper
from litdesk.core.words import plural
from litdesk.core.zotero import ZoteroItem, ZoteroNote, item_paper_fields, note_text
from litdesk.services.files import write_output
from litdesk.services.library import Library, PdfRecords
from litdesk.services.screening import PaperOutcomes, ScreeningArea, StudyScreenRequest
from litdesk.services.workspace import IdentityConflict, Workspace

from ._pdfs import PdfPlacer
from ._push import link_library, make_plan, push_api, ris_file
from ._requests import (
    MAX_NAME_CHARS,
    ZoteroImportRequest,
    ZoteroPushRequest,
    ZoteroWebImportRequest,
)
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
#: a Study's id (``study-`` and 24 hex digits): as an import's Study it names that Study
_STUDY_ID: Final = re.compile(r"study-[0-9a-f]{24}")


class UnknownCollection(NotFoundError):
    """A collection named in the request is not in the library (the message lists the
    collections there are)."""

    default_code = "zotero_unknown_collection"


@dataclass
class _Run:
    """What one import has done so far (its counts, links, papers and problems)."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    notes_added: int = 0
    notes_unchanged: int = 0
    notes_changed: int = 0
    papers_of: dict[str, Paper] = field(default_factory=dict)
    saved_keys: set[str] = field(default_factory=set)
    unchanged_keys: set[str] = field(default_factory=set)
    changed: list[Paper] = field(default_factory=list)
    new_links: dict[str, ZoteroLink] = field(default_factory=dict)
    studies: list[StudyCount] = field(default_factory=list)
    study_ids: dict[str, str] = field(default_factory=dict)
    problems: list[ItemProblem] = field(default_factory=list)


def _link_fields(item: ZoteroItem) -> dict[str, str]:
    """The item's language and citation key (litdesk's Paper has no field for them; they
    are kept with the item's identity link)."""
    values = {
        "language": item.fields.get("language", "").strip(),
        "citation_key": item.citation_key or "",
    }
    return {k: v for k, v in values.items() if v}


def _standalone(lib: ZoteroLibrary, attached: set[str], problems: list[ItemProblem]) -> None:
    """Standalone notes not related to an imported item are reported, each by key and its
    first words: a litdesk note belongs to a paper (the store keeps no note without one)."""
    for note in lib.standalone_notes:
        if note.key in attached:
            continue
        first = note_text(note.html).split("\n", 1)[0][:80]
        problems.append(
            ItemProblem(
                note.key,
                first or "(empty note)",
                "a standalone note related to no imported item is not imported: a litdesk "
                "note belongs to a paper (relate it to its item in Zotero: Related → Add)",
            )
        )


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
        screening: ScreeningArea,
        http_transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        """``screening``: the Studies' screening decisions a push gives back;
        ``http_transport`` and ``sleep``: test hooks of the Zotero API writes."""
        self._store = store
        self._pdfs = pdfs
        self._screening = screening
        self._http = http_transport
        self._sleep = sleep

    def _screened(self, request: ZoteroPushRequest, owner: str) -> PaperOutcomes:
        return self._screening.paper_outcomes(StudyScreenRequest(request.study), owner=owner)

    def plan_push(self, request: ZoteroPushRequest, *, owner: str) -> PushPlanView:
        """What :meth:`push` would write (nothing is sent or written)."""
        screened = self._screened(request, owner)
        return make_plan(self._store, request, owner=owner, screened=screened)[0]

    async def push(self, request: ZoteroPushRequest, *, owner: str, confirm: bool) -> PushView:
        """Write the plan of :meth:`plan_push` — only with ``confirm`` (the person saw the
        plan, or ``--yes``): to the RIS file, or through the Zotero API."""
        if not confirm:
            raise RefusedError(
                "nothing is written to Zotero without a confirmation (see the plan; --yes)",
                code="zotero_unconfirmed",
            )
        screened = self._screened(request, owner)
        plan, papers = make_plan(self._store, request, owner=owner, screened=screened)
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

    async def import_web(self, request: ZoteroWebImportRequest, *, owner: str) -> ZoteroImportView:
        """Import (or import again: only what changed since) a library of zotero.org
        through the Web API v3 (see ``_web_import``), with the same outcomes as
        :meth:`import_library`."""
        from ._web_import import read_web, remember_version

        if request.study is not None:  # refused before anything is asked of Zotero
            await asyncio.to_thread(self._target_study, request.study, owner)
        reader = ZoteroWebReader(
            library=request.library, api_key=request.api_key, transport=self._http,
            sleep=self._sleep,
        )  # fmt: skip
        files = self._pdfs.data_dir / "zotero-web" / request.library.replace("/", "-")
        read = await read_web(reader, request, self._store, owner=owner, files_dir=files)
        view = await asyncio.to_thread(  # the store and the PDF library: off the loop
            partial(
                self.import_read,
                read.lib,
                request.as_import(),
                owner=owner,
                deleted=read.deleted,
                source=f"zotero.org {request.library}",
                problems=read.problems,
            )
        )
        await asyncio.to_thread(
            partial(remember_version, self._store, read, owner=owner, problems=view.problems)
        )
        return replace(
            view,
            library_version=read.version,
            since=read.since,
            asked_again=read.asked_again,
            given_up=read.given_up,
        )

    def _target_study(self, ref: str, owner: str) -> None:
        """The Study an import names: one the owner may change, or a new name (a Study's
        id names that Study: another account's is not found, a viewer's refused)."""
        try:
            Workspace(self._store, owner=owner).study(ref, "write")
        except NotFoundError:
            if _STUDY_ID.fullmatch(ref.strip()):
                raise

    def import_library(self, request: ZoteroImportRequest, *, owner: str) -> ZoteroImportView:
        """Import (or import again) a Zotero library into Studies (see the module
        docstring): the Studies, papers, notes and identity links in one transaction (an
        error or a killed process part-way leaves nothing of this import), then the PDFs."""
        data_dir = Path(request.data_dir) if request.data_dir else default_data_dir()
        base_dir = Path(request.base_dir).expanduser() if request.base_dir else None
        if base_dir is not None and not base_dir.is_dir():
            raise InputError(f"no such base directory: {base_dir}", code="zotero_bad_path")
        lib = read_library(data_dir, group=request.group)
        return self.import_read(lib, request, owner=owner, base_dir=base_dir)

    def import_read(
        self,
        lib: ZoteroLibrary,
        request: ZoteroImportRequest,
        *,
        owner: str,
        base_dir: Path | None = None,
        deleted: tuple[str, ...] | None = None,
        source: str | None = None,
        problems: tuple[ItemProblem, ...] = (),
    ) -> ZoteroImportView:
        """Import ``lib`` as read (offline, or through the Web API: see ``_web_import``);
        ``deleted``: a read of only the items changed since the last import (the others
        are not in ``lib``): the keys deleted in Zotero since then, reported as removed
        instead of every item not read; ``source``: where it was read (for the view)."""
        plan = _plan(lib, request)
        links = read_links(self._store, owner=owner, library=lib.library)
        ws = Workspace(self._store, owner=owner)
        run = _Run(problems=list(problems))
        with ws.transaction() as conn:
            for name, items in plan.studies.items():
                self._study_items(ws, conn, lib, name, items, links, run)
            self._notes_and_links(ws, conn, lib, plan, links, run)
            for paper in run.changed:
                ws.update_paper_in(conn, paper)
            write_links_in(conn, list(run.new_links.values()), owner=owner)
            for study_id in run.study_ids.values():  # its papers counted under the library
                sources_changed(conn, study_id)
        _standalone(lib, set(run.new_links), run.problems)
        items_done = {i.key: i for items in plan.studies.values() for i in items}
        pdfs = caches = new_pdfs = 0
        if request.pdfs:  # the library's files and index: after the import committed
            pdfs, new_pdfs, caches = self._place_pdfs(
                lib,
                items_done,
                run.papers_of,
                base_dir,
                run.problems,
                run.unchanged_keys,
                owner=owner,
            )
        current = {i.key for i in lib.items}
        gone = set(deleted) if deleted is not None else None
        removed = tuple(
            ItemRef(k, link.title)
            for k, link in sorted(links.items())
            if link.kind == "item" and (k not in current if gone is None else k in gone)
        )
        names = _paths(lib)  # "Parent / Child"
        moved = tuple(
            MovedItem(
                i.key,
                i.title,
                links[i.key].collections,
                tuple(i.collections),
                tuple(names.get(k, k) for k in links[i.key].collections),
                tuple(names.get(k, k) for k in i.collections),
            )
            for i in lib.items
            if i.key in links
            and links[i.key].kind == "item"
            and set(links[i.key].collections) != set(i.collections)
        )
        return ZoteroImportView(
            data_dir=source or str(lib.data_dir),
            library=lib.library,
            schema_version=lib.userdata,
            items_read=len(lib.items),
            added=run.added,
            updated=run.updated,
            unchanged=run.unchanged,
            trashed_left_out=lib.trashed,
            studies=tuple(run.studies),
            removed=removed,
            moved=moved,
            notes_added=run.notes_added,
            notes_unchanged=run.notes_unchanged,
            notes_changed=run.notes_changed,
            pdfs_attached=pdfs,
            pdfs_new=new_pdfs,
            full_text_caches=caches,
            problems=tuple(run.problems),
        )

    def _study_items(
        self,
        ws: Workspace,
        conn: Connection,
        lib: ZoteroLibrary,
        name: str,
        items: list[ZoteroItem],
        links: dict[str, ZoteroLink],
        run: _Run,
    ) -> None:
        """One Study of the plan (created when missing) with its items' papers saved."""
        study, created = ws.study_in(conn, name, description="Imported from Zotero")
        to_save: list[tuple[str, Paper]] = []
        for item in items:
            if item.key in run.papers_of:  # in two Studies: saved once, linked to both
                to_save.append((item.key, run.papers_of[item.key]))
                continue
            paper = self._item_paper(ws, conn, lib, item, links.get(item.key), run)
            if paper is not None:
                run.papers_of[item.key] = paper
                to_save.append((item.key, paper))
        saved_ids: set[str] = set()
        for key, paper in to_save:
            try:
                result = ws.save_in(conn, paper, study_id=study.id)
            except IdentityConflict as exc:  # nothing of it was written: only it is left out
                run.problems.append(ItemProblem("", paper.title, exc.message))
                if key not in run.saved_keys:
                    run.papers_of.pop(key, None)  # not saved: no link is made
                continue
            # a new record may have merged into a paper saved before (same DOI, …)
            run.papers_of[key] = result.paper
            run.saved_keys.add(key)
            saved_ids.add(result.paper.id)
        # counted under the library in this Study's PRISMA flow (not in another Study's)
        add_study_items(conn, study.id, sorted(saved_ids), library=lib.library, owner=ws.owner)
        total = ws.study_size_in(conn, study.id)
        run.studies.append(StudyCount(study.id, study.name, len(saved_ids), created, total))
        run.study_ids[name] = study.id

    def _item_paper(
        self,
        ws: Workspace,
        conn: Connection,
        lib: ZoteroLibrary,
        item: ZoteroItem,
        link: ZoteroLink | None,
        run: _Run,
    ) -> Paper | None:
        """The paper of ``item``: new, updated from a changed item, or as saved (unchanged);
        ``None`` (a problem reported) when the item makes no valid paper."""
        fields: dict[str, Any] = item_paper_fields(item)
        try:
            paper = make_paper(fallback_key=f"zotero:{lib.library}:{item.key}", **fields)
        except PaperError as exc:
            run.problems.append(ItemProblem(item.key, item.title, exc.message))
            return None
        if link is not None and link.kind == "item":
            try:
                old = ws.paper_in(conn, link.target)
            except NotFoundError:
                link = None  # the paper was deleted in litdesk: import it again
            else:
                if link.same_version(item.version, item.date_modified):
                    run.unchanged += 1
                    run.unchanged_keys.add(item.key)
                    return old
                try:
                    paper = _updated(old, paper.model_copy(update={"id": old.id}))
                except IdentityConflict as exc:
                    run.problems.append(ItemProblem(item.key, item.title, exc.message))
                    return old
                run.changed.append(paper)
                run.updated += 1
                return paper
        run.added += 1
        return paper

    def _notes_and_links(
        self,
        ws: Workspace,
        conn: Connection,
        lib: ZoteroLibrary,
        plan: _Plan,
        links: dict[str, ZoteroLink],
        run: _Run,
    ) -> None:
        """Each saved item's identity link, and its child notes (added, or updated in
        place when changed in Zotero: never added twice)."""
        study_of: dict[str, str] = {}
        items_done: dict[str, ZoteroItem] = {}
        for name, items in plan.studies.items():
            for i in items:
                study_of.setdefault(i.key, name)
                items_done.setdefault(i.key, i)
        for item in items_done.values():
            linked = run.papers_of.get(item.key)
            if linked is None:
                continue
            run.new_links[item.key] = ZoteroLink(
                lib.library,
                item.key,
                "item",
                linked.id,
                item.version,
                item.date_modified,
                tuple(item.collections),
                item.title,
                tuple(item.tags),
                _link_fields(item),
            )
            study_id = run.study_ids.get(study_of[item.key])
            for note in item.notes:
                old = links.get(note.key)
                n_link = self._note(ws, conn, note, linked, study_id, old, lib, item, run)
                if n_link is not None:
                    run.new_links[note.key] = n_link
        # a standalone note related to imported items: a note of the first (by key)
        for note in lib.standalone_notes:
            item_key = next((k for k in note.related if k in run.papers_of), None)
            if item_key is None or item_key not in items_done:
                continue
            study_id = run.study_ids.get(study_of[item_key])
            n_link = self._note(
                ws,
                conn,
                note,
                run.papers_of[item_key],
                study_id,
                links.get(note.key),
                lib,
                items_done[item_key],
                run,
            )
            if n_link is not None:
                run.new_links[note.key] = n_link

    def _note(
        self,
        ws: Workspace,
        conn: Connection,
        note: ZoteroNote,
        paper: Paper,
        study_id: str | None,
        old: ZoteroLink | None,
        lib: ZoteroLibrary,
        item: ZoteroItem,
        run: _Run,
    ) -> ZoteroLink | None:
        """A child note added, or (changed in Zotero since the last import) its litdesk
        notes updated in place; the note's link (``None``: nothing imported)."""

        def problem(text: str) -> None:
            run.problems.append(ItemProblem(item.key, item.title, text))

        if old is not None and old.same_version(note.version, note.date_modified):
            run.notes_unchanged += 1
            return old
        link = ZoteroLink(lib.library, note.key, "note", "", note.version, note.date_modified)
        if old is not None and old.kind == "pushed":  # litdesk wrote it; its record stays
            problem(
                f"note {note.key} (written by litdesk) was changed in Zotero; litdesk's "
                "own note or evidence record stays as it was"
            )
            return ZoteroLink(
                old.library, old.item_key, old.kind, old.target, note.version, note.date_modified
            )
        text = note_text(note.html)
        if not text:
            problem(f"note {note.key} is empty once reduced to text")
            return old
        chunks = _note_chunks(text)
        before = old.target.split(",") if old is not None and old.kind == "note" else []
        ids: list[str] = []
        added = 0
        try:
            for index, chunk in enumerate(chunks):
                if index < len(before):
                    try:
                        ws.replace_note_in(conn, before[index], chunk)
                    except NotFoundError:  # deleted in litdesk: this part anew
                        pass
                    else:
                        ids.append(before[index])
                        continue
                ids.append(ws.add_note_in(conn, paper.id, chunk, study_id=study_id))
                added += 1
        except LitdeskError as exc:
            problem(f"note {note.key}: {exc.message}")
            if not ids:
                return old
        if len(before) > len(chunks):
            kept = before[len(chunks) :]
            ids.extend(kept)
            problem(
                f"note {note.key} got shorter in Zotero: litdesk kept its last "
                f"{plural(len(kept), 'part')} as before"
            )
        run.notes_added += added
        if before:
            run.notes_changed += 1
        return ZoteroLink(
            link.library, link.item_key, "note", ",".join(ids), link.version, link.date_modified
        )

    def _place_pdfs(
        self,
        lib: ZoteroLibrary,
        items: dict[str, ZoteroItem],
        papers_of: dict[str, Paper],
        base_dir: Path | None,
        problems: list[ItemProblem],
        unchanged: set[str],
        *,
        owner: str,
    ) -> tuple[int, int, int]:
        """The PDFs attached (all the library's usable files), those new to this import
        (not attached from the same file before) and those with Zotero's full text."""
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
                        found.path,
                        att.key,
                        item.key,
                        paper,
                        fresh=item.key not in unchanged,
                        full_text=found.full_text,
                    )
                except (OSError, LitdeskError) as exc:
                    reason = exc.message if isinstance(exc, LitdeskError) else exc.strerror
                    problems.append(ItemProblem(item.key, item.title, f"{att.key}: {reason}"))
                    continue
                placed += 1
                caches += 1 if found.full_text is not None else 0
        placer.finish()
        # attached in the papers' Studies too (they showed "0 with a PDF" after "4 PDFs
        # attached"): the Study's PDFs and full text, screening and PRISMA count them
        PdfRecords(self._store, self._pdfs).attach_imported(
            placer.placed, how="zotero", owner=owner
        )
        for problem in placer.problems:  # not stored for the other hosts (shared store)
            name = next((n for n in placer.items if problem.startswith(n + " ")), "")
            key, title = placer.items.get(name, ("", ""))
            problems.append(ItemProblem(key, title, problem))
        return placed, placer.new, caches
