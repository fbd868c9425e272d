"""Giving a Study's tags and notes back to Zotero: the plan, the RIS file, the API writes.

The plan takes each paper of the Study that came from a Zotero item of the library
(identity link; a paper several items became — merged as one, or grouped as one study of
the working set — gives back to every one of them) and lists what litdesk adds to it: a
``litdesk:<reading status>`` tag; the Study's settled screening decision per stage
(``litdesk:ta:included``, ``litdesk:ft:excluded``, ``litdesk:ta:maybe``) and an exclusion's
reason (``litdesk:reason:<reason>``) as tags; and the Study's notes and evidence records on
it (evidence as a note of its fields and quoted passage) that did not come from Zotero and
were not pushed before. The ``litdesk:`` tags are litdesk's own: one pushed before that no
longer holds (a status or decision changed, a decision undone) is taken off. A stage still
blind is not given back (see :mod:`litdesk.services.screening._papers`). The API
push updates each item's tags through its version as imported (a newer change in Zotero is
refused, :class:`~litdesk.adapters.zotero.ZoteroConflict`, naming the items; the others are
written and recorded), then creates
the notes as child notes — both in batches of 50 — and records the written notes and the
items' new versions (so neither is written twice). Without a connection the same is
written as an RIS file Zotero imports with tags and notes (``KW``, ``N1``).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Final

from litdesk.adapters.formats import dumps
from litdesk.adapters.store import Store
from litdesk.adapters.zotero._links import ZoteroLink, read_links, write_links
from litdesk.adapters.zotero._web import MAX_BATCH, WriteOutcome, ZoteroWebClient
from litdesk.core.evidence import Evidence
from litdesk.core.forms import value_text
from litdesk.core.records import Paper
from litdesk.core.screening import STAGES, Outcome, Stage
from litdesk.services.screening import PaperOutcomes
from litdesk.services.workspace import Workspace

from ._requests import ZoteroPushRequest
from ._views import ItemProblem, PushItem, PushPlanView

__all__ = [
    "STATUS_TAG",
    "decision_tags",
    "link_library",
    "make_plan",
    "push_api",
    "ris_file",
]

STATUS_TAG: Final = "litdesk:"
#: Zotero's longest tag (characters)
MAX_TAG_CHARS: Final = 255
_STAGE_TAG: Final[Mapping[Stage, str]] = {"title_abstract": "ta", "full_text": "ft"}
_VERDICT_TAG: Final = {"include": "included", "exclude": "excluded", "maybe": "maybe"}


def decision_tags(outcomes: Mapping[Stage, Outcome]) -> tuple[str, ...]:
    """A paper's settled screening outcomes as tags: ``litdesk:<ta|ft>:<verdict>`` per
    stage, then each exclusion's reason as ``litdesk:reason:<reason>`` (once)."""
    tags: list[str] = []
    reasons: list[str] = []
    for stage in STAGES:
        outcome = outcomes.get(stage)
        if outcome is None or outcome.verdict is None:
            continue
        tags.append(f"{STATUS_TAG}{_STAGE_TAG[stage]}:{_VERDICT_TAG[outcome.verdict]}")
        reason = " ".join(outcome.reason.split())
        if outcome.verdict == "exclude" and reason:
            reasons.append(f"{STATUS_TAG}reason:{reason}"[:MAX_TAG_CHARS])
    return (*tags, *dict.fromkeys(reasons))


def link_library(library: str | None) -> str:
    """The identity links' library name of an API library (``users/N`` → ``user``,
    ``groups/N`` → ``group:N``); ``user`` for an RIS file."""
    if library is None or library.startswith("users/"):
        return "user"
    return "group:" + library.partition("/")[2]


def _note_html(text: str) -> str:
    paras = [p for p in text.split("\n") if p.strip()]
    return "".join(f"<p>{html.escape(p)}</p>" for p in paras)


def _evidence_text(ev: Evidence) -> str:
    """An evidence record as a note's text (its fields, the passage quoted, its check)."""
    lines = ["litdesk evidence"]
    if ev.finding:
        lines.append(f"Finding: {ev.finding}")
    for key, form_value in ev.values.items():  # a Study's own form
        lines.append(f"{key.replace('_', ' ').capitalize()}: {value_text(form_value)}")
    for label, value in (
        ("Question", ev.question),
        ("Population", ev.population),
        ("Intervention", ev.intervention),
        ("Method", ev.method),
        ("Limitations", ev.limitations),
    ):
        if value:
            lines.append(f"{label}: {value}")
    source = ev.pdf.label() if ev.pdf else ev.source
    where = f" ({source}{', ' + ev.location if ev.location else ''})"
    lines.append(f"“{ev.passage}”{where}")
    lines.append(f"Verification: {ev.verification.replace('_', ' ')}")
    return "\n".join(lines)


def make_plan(
    store: Store,
    request: ZoteroPushRequest,
    *,
    owner: str,
    screened: PaperOutcomes | None = None,
) -> tuple[PushPlanView, dict[str, Paper]]:
    """The plan (see the module docstring) and the paper of each planned item key;
    ``screened``: the Study's screening outcomes per paper (``None``: no decision tags)."""
    ws = Workspace(store, owner=owner)
    study = ws.study(request.study)
    library = link_library(request.library)
    links = read_links(store, owner=owner, library=library)
    by_paper: dict[str, list[ZoteroLink]] = {}
    for link in links.values():
        if link.kind == "item":
            by_paper.setdefault(link.target, []).append(link)
    decided = screened.by_paper if screened is not None else {}
    from_zotero = {
        note_id
        for link in links.values()
        if link.kind in ("note", "pushed")
        for note_id in link.target.split(",")
    }
    notes_of: dict[str, list[tuple[str, str]]] = {}
    views, _problems = ws.notes(study=study.id)
    for view in views:
        if view.id in from_zotero:
            continue
        note = view.annotation
        parts = []
        if note.anchor is not None:
            parts.append(f"“{note.anchor.text}”")
        if note.comment:
            parts.append(note.comment)
        if parts:
            notes_of.setdefault(note.paper_id, []).append((view.id, "\n".join(parts)))
    records, _unreadable = ws.evidence(study=study.id)
    for ev_view in records:
        if ev_view.id not in from_zotero:
            notes_of.setdefault(ev_view.evidence.paper_id, []).append(
                (ev_view.id, _evidence_text(ev_view.evidence))
            )
    items: list[PushItem] = []
    skipped: list[ItemProblem] = []
    papers: dict[str, Paper] = {}
    for row in ws.papers(study=study.id, limit=None):
        item_links = by_paper.get(row.paper.id)
        if not item_links:
            skipped.append(ItemProblem("", row.paper.title, "not from this Zotero library"))
            continue
        status = (f"{STATUS_TAG}{row.status}",) if row.status else ()
        tags = (*status, *decision_tags(decided.get(row.paper.id, {})))
        item_links.sort(key=lambda k: k.item_key)
        for link in item_links:
            # a status or decision changed (or undone) since the last push: its old
            # litdesk: tag goes
            old_tags = tuple(t for t in link.tags if t.startswith(STATUS_TAG) and t not in tags)
            items.append(
                PushItem(
                    key=link.item_key,
                    title=link.title or row.paper.title,
                    version=link.version,
                    tags=tuple(t for t in tags if t not in link.tags),
                    # a note goes to one item (the first by key): not twice into Zotero
                    notes=tuple(notes_of.get(row.paper.id, ())) if link is item_links[0] else (),
                    removed_tags=old_tags,
                )
            )
            papers[link.item_key] = row.paper
    plan = PushPlanView(
        study=study.name,
        library=request.library or library,
        target=request.target,
        items=tuple(items),
        skipped=tuple(skipped),
        blind_stages=screened.blind if screened is not None else (),
    )
    return plan, papers


def ris_file(plan: PushPlanView, papers: dict[str, Paper], links: dict[str, ZoteroLink]) -> str:
    """The plan's items as RIS with every tag (Zotero's and litdesk's, ``KW``; an old
    status tag left out), the item's language (``LA``) and the notes to add (``N1``, one
    HTML line each, which Zotero imports as child notes)."""
    out: list[str] = []
    for item in plan.items:
        paper = papers[item.key]
        link = links.get(item.key)
        known = set(paper.keywords)
        gone = set(item.removed_tags)
        extra_tags = [
            t for t in (*(link.tags if link else ()), *item.tags) if t not in known | gone
        ]
        lines = [
            line
            for line in dumps([paper], "ris").rstrip("\n").split("\n")
            if line[6:] not in gone or not line.startswith("KW  - ")
        ]
        end = lines.index("ER  - ")
        added = [f"KW  - {t}" for t in extra_tags]
        language = link.fields.get("language") if link else None
        if language and not any(line.startswith("LA  - ") for line in lines):
            added.append(f"LA  - {language}")
        added += [f"N1  - {_note_html(text)}" for _, text in item.notes]
        out.extend([*lines[:end], *added, *lines[end:], ""])
    return "\n".join(out)


async def push_api(
    store: Store,
    plan: PushPlanView,
    client: ZoteroWebClient,
    *,
    owner: str,
    library: str,
) -> tuple[int, int]:
    """Write the plan through ``client``: tags (guarded by each item's version), then the
    notes; the links record the new versions and the written notes. Returns (items
    written, notes written)."""
    links = read_links(store, owner=owner, library=library)
    planned = [
        (i, tuple(dict.fromkeys(t for t in (*links[i.key].tags, *i.tags) if t not in gone)))
        for i in plan.items
        if (i.tags or i.removed_tags) and i.key in links
        for gone in [set(i.removed_tags)]
    ]
    conflicts: list[str] = []
    items_written = notes_written = 0
    for start in range(0, len(planned), MAX_BATCH):
        chunk = planned[start : start + MAX_BATCH]
        objects: list[dict[str, object]] = [
            {"key": i.key, "version": i.version, "tags": [{"tag": t} for t in tags]}
            for i, tags in chunk
        ]
        outcome = await client.write(objects)
        updated: list[ZoteroLink] = []
        for index, (item, tags) in enumerate(chunk):
            written = outcome.successful.get(index)
            if written is None:
                continue  # refused (a newer version in Zotero): its link stays
            version = written.get("version")
            link = links[item.key]
            updated.append(
                _relinked(link, version if isinstance(version, int) else link.version, tags)
            )
        write_links(store, updated, owner=owner)
        items_written += len(outcome.successful)
        conflicts.extend(outcome.conflicts)
    if conflicts:  # the others are written and recorded; no note goes before a re-import
        raise WriteOutcome(conflicts=tuple(conflicts)).conflict()
    notes = [
        (i.key, note_id, text) for i in plan.items for note_id, text in i.notes
    ]  # fmt: skip
    for batch_notes in [notes[i : i + MAX_BATCH] for i in range(0, len(notes), MAX_BATCH)]:
        notes_objects: list[dict[str, object]] = [
            {"itemType": "note", "parentItem": key, "note": _note_html(text), "tags": []}
            for key, _, text in batch_notes
        ]
        outcome = await client.write(notes_objects)
        pushed: list[ZoteroLink] = []
        for index, written in outcome.successful.items():
            key = written.get("key")
            version = written.get("version")
            if not isinstance(key, str) or index >= len(batch_notes):
                continue
            pushed.append(
                ZoteroLink(
                    library,
                    key,
                    "pushed",
                    batch_notes[index][1],
                    version if isinstance(version, int) else 0,
                    "",
                )
            )
        write_links(store, pushed, owner=owner)
        notes_written += len(pushed)
    return items_written, notes_written


def _relinked(link: ZoteroLink, version: int, tags: tuple[str, ...]) -> ZoteroLink:
    return ZoteroLink(
        link.library,
        link.item_key,
        link.kind,
        link.target,
        version,
        link.date_modified,
        link.collections,
        link.title,
        tags,
    )
