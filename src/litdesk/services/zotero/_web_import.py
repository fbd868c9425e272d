"""A library of zotero.org read through the Web API v3 for :meth:`ZoteroArea.import_web`.

What is read: the collection tree (``/collections``, all of it: Study names are collection
paths as offline), then the items — the whole library's (``/items``, child notes and
attachments with them), or for chosen collections each collection's of their trees
(``/collections/<key>/items/top``) and the library's child notes and attachments
(``/items?itemType=note || attachment``) of those items. A child changed since the last
import whose item did not change brings its item along (``itemKey=``), so a note edited in
Zotero is updated in place as offline.

The library version an import read at (``Last-Modified-Version``) is kept with the
identity links (a link of kind ``since`` per choice of collections, Study and PDFs): the
next import of the same choice asks only for what changed after it (``since=``, with
``If-Modified-Since-Version``: 304 is "nothing changed") and reports the items deleted
since (``/deleted``) and those put in the trash since (``includeTrashed``) as removed. Stored PDFs (``--with-pdfs``) are downloaded into
``<data dir>/zotero-web/<library>/storage/<attachment key>/`` (again only when Zotero's
``md5`` differs from the file there) and then placed as an offline import places them.

The items an import reported a problem of (a download that timed out, a 429 after the
retries, a file refused) are kept with that version, under a link of kind ``retry`` per
choice (``{key: tries, title, problem, children}``): the next import asks for them again
(``itemKey=``, at most 50 keys a request, their attachments and notes with them) even
though they did not change on zotero.org, so a transient failure heals by importing
again. An item whose problem comes back on :data:`MAX_TRIES` imports in a row (bad data:
it will not import until it changes) is reported once more as not asked again and then
left alone (kept, not asked); it is read again when it or one of its attachments or notes
changes in Zotero, or with ``--full``. A changed item comes without its unchanged
attachments and notes (``since=`` lists only what changed): those of a changed item with a
problem kept are asked for with it, so a PDF whose download failed before is tried again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from litdesk._errors import LitdeskError
from litdesk.adapters.store import Store
from litdesk.adapters.zotero import ZoteroLibrary
from litdesk.adapters.zotero._links import ZoteroLink, read_links, write_links
from litdesk.adapters.zotero._webread import ZoteroWebReader
from litdesk.core.zotero import ZoteroAttachment, ZoteroCollection, ZoteroItem
from litdesk.core.zotero._webjson import web_collections, web_items

from ._push import link_library
from ._requests import ZoteroWebImportRequest
from ._views import ItemProblem

__all__ = ["MAX_TRIES", "Retry", "WebRead", "read_web", "remember_version"]


@dataclass(frozen=True, slots=True)
class Retry:
    """An item with a problem at the last import: how many imports in a row had one, what
    it was, and the keys of its attachments and notes (asked for with it)."""

    tries: int
    title: str
    problem: str
    children: tuple[str, ...] = ()


SINCE_KIND: Final = "since"
RETRY_KIND: Final = "retry"
#: Imports in a row an item's problem may come back before it is no longer asked again.
MAX_TRIES: Final = 3
#: Items kept to ask again (the most problems one import keeps for the next).
MAX_KEPT: Final = 2_000
_KEYS_PER_REQUEST: Final = 50
_CHILDREN: Final = "note || attachment"


@dataclass(frozen=True, slots=True)
class WebRead:
    """One read: the library as the offline reader gives it; ``deleted``: the keys
    deleted since the last import (``None``: a full read of the whole library, where an
    item not read is a removed one); the version read at and the one asked ``since``."""

    lib: ZoteroLibrary
    deleted: tuple[str, ...] | None
    version: int | None
    since: int | None
    marker: str
    problems: tuple[ItemProblem, ...]
    #: the items of the last import's problems asked for again (not changed since)
    asked_again: tuple[str, ...] = ()
    #: those no longer asked (their problem came back :data:`MAX_TRIES` times)
    given_up: tuple[str, ...] = ()
    #: the last import's problem items (:func:`remember_version` counts on from them)
    retry: dict[str, Retry] | None = None
    #: keys read because they changed since, and the items of children that did (a
    #: changed item's problems count anew)
    changed: frozenset[str] = frozenset()
    #: ``{item key: its attachments' and notes' keys}`` of this read
    children: dict[str, tuple[str, ...]] | None = None


def _descendants(collections: tuple[ZoteroCollection, ...], roots: list[str]) -> list[str]:
    children: dict[str | None, list[str]] = {}
    for c in collections:
        children.setdefault(c.parent_key, []).append(c.key)
    out: list[str] = []
    todo = list(roots)
    while todo:
        key = todo.pop()
        if key not in out:
            out.append(key)
            todo.extend(children.get(key, ()))
    return out


def _marker(request: ZoteroWebImportRequest, scope: list[str]) -> str:
    """The ``since`` link's key of this choice (collections, Study, sub-Studies, PDFs)."""
    choice = [sorted(scope), request.study, request.sub_studies, request.pdfs]
    return "~" + hashlib.sha256(json.dumps(choice).encode()).hexdigest()[:24]


def _retry_marker(marker: str) -> str:
    """The ``retry`` link's key of a choice (beside its ``since`` link's)."""
    return "!" + marker[1:]


def _retries(link: ZoteroLink | None) -> dict[str, Retry]:
    """The problem items a ``retry`` link keeps (nothing from a link not of that kind or
    not readable: asking again is a help, never a reason to fail an import)."""
    if link is None or link.kind != RETRY_KIND:
        return {}
    try:
        kept = json.loads(link.target)
    except ValueError:
        return {}
    out: dict[str, Retry] = {}
    for key, entry in kept.items() if isinstance(kept, dict) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("tries"), int):
            continue
        children = entry.get("children")
        out[str(key)] = Retry(
            entry["tries"],
            str(entry.get("title", "")),
            str(entry.get("problem", "")),
            tuple(str(c) for c in children) if isinstance(children, list) else (),
        )
    return out


def _keys(objects: list[object]) -> set[str]:
    return {o["key"] for o in objects if isinstance(o, dict) and isinstance(o.get("key"), str)}


def _children(objects: list[object]) -> dict[str, tuple[str, ...]]:
    """``{item key: the keys of its children read}``."""
    out: dict[str, list[str]] = {}
    for obj in objects:
        data = obj.get("data") if isinstance(obj, dict) else None
        if not isinstance(data, dict):
            continue
        parent, key = data.get("parentItem"), data.get("key")
        if isinstance(parent, str) and parent and isinstance(key, str):
            out.setdefault(parent, []).append(key)
    return {k: tuple(v) for k, v in out.items()}


def _in_scope(obj: object, scope: list[str]) -> bool:
    """A child (its item decides), or an item of a chosen collection's tree."""
    data = obj.get("data") if isinstance(obj, dict) else None
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("parentItem"), str) and data["parentItem"]:
        return True
    colls = data.get("collections")
    return isinstance(colls, list) and bool(
        set(scope).intersection(c for c in colls if isinstance(c, str))
    )


async def _by_keys(reader: ZoteroWebReader, keys: list[str]) -> list[object]:
    """The objects of ``keys`` (``itemKey=``, at most 50 a request, as the Web API allows)."""
    out: list[object] = []
    for i in range(0, len(keys), _KEYS_PER_REQUEST):
        chunk = ",".join(keys[i : i + _KEYS_PER_REQUEST])
        out.extend((await reader.listing("items", params={"itemKey": chunk})).objects)
    return out


def _file_name(att: ZoteroAttachment, name: str) -> str:
    base = Path(name).name if name else ""
    if not base or base in (".", "..") or "\x00" in base:
        base = f"{att.key}.pdf"
    return base[:150]


async def read_web(
    reader: ZoteroWebReader,
    request: ZoteroWebImportRequest,
    store: Store,
    *,
    owner: str,
    files_dir: Path,
) -> WebRead:
    """Read the library for ``request`` (see the module docstring); PDFs downloaded when
    asked (each failure a problem of its item, the item imported without it)."""
    from ._area import _check_names  # one rule for unknown collection names

    library = link_library(request.library)
    listed = await reader.listing("collections", what="library")
    collections = web_collections(listed.objects)
    scope: list[str] = []
    if request.collections:
        shell = ZoteroLibrary(files_dir, {}, library, (), collections, (), 0)
        by_name = _check_names(shell, request.collections)
        scope = _descendants(collections, [k for n in request.collections for k in by_name[n]])
    marker = _marker(request, scope)
    links = read_links(store, owner=owner, library=library)
    kept = links.get(marker)
    since = (
        kept.version if kept is not None and kept.kind == SINCE_KIND and not request.full else None
    )
    objects: list[object] = []
    version = listed.library_version
    # read again: the items put in the trash since come too (reported as removed)
    trash = {"includeTrashed": "1"} if since is not None else {}
    if not scope:
        got = await reader.listing("items", since=since, params=trash)
        objects.extend(got.objects)
        version = got.library_version or version
    else:
        for key in scope:
            path = f"collections/{key}/items/top"
            got = await reader.listing(path, since=since, params=trash, what="collection")
            objects.extend(got.objects)
            version = got.library_version or version
        children = await reader.listing("items", since=since, params={"itemType": _CHILDREN})
        objects.extend(children.objects)
    read_now = _keys(objects)
    changed = frozenset(read_now | _children(objects).keys())
    retry = _retries(links.get(_retry_marker(marker))) if since is not None else {}
    asked = sorted(k for k, r in retry.items() if r.tries < MAX_TRIES and k not in changed)
    given_up = sorted(k for k, r in retry.items() if r.tries == MAX_TRIES and k not in changed)
    # the last import's problem items not changed: another chance, with their attachments
    # and notes; those changed came without their unchanged ones: asked for (a PDF that
    # failed is tried again)
    with_children = [*asked, *(k for k in retry if k in changed)]
    wanted = {*asked, *(c for k in with_children for c in retry[k].children)} - read_now
    if wanted:
        again = await _by_keys(reader, sorted(wanted))
        objects.extend(o for o in again if not scope or _in_scope(o, scope))
    objects.extend(await _parents(reader, objects, scope))
    read = web_items(_unique(objects), library=library)
    problems = [
        ItemProblem(
            key,
            retry[key].title,
            f"not asked again: its problem came back on {MAX_TRIES} imports in a row (the "
            f"last: {retry[key].problem}); change it in Zotero, or import with --full",
        )
        for key in given_up
    ]
    items = [_linked_files(i, problems) for i in read.items]
    if request.pdfs:
        items = [await _download(reader, i, read.files, files_dir, problems) for i in items]
    lib = ZoteroLibrary(
        data_dir=files_dir,
        schema={},
        library=library,
        items=tuple(items),
        collections=collections,
        standalone_notes=read.standalone_notes,
        trashed=0,
        collection_items=read.collection_items,
    )
    deleted: tuple[str, ...] | None = None
    if since is not None:
        deleted = tuple(dict.fromkeys((*await reader.deleted(since), *read.trashed)))
    elif scope:
        deleted = ()  # a collection read says nothing of the items outside it
    return WebRead(
        lib, deleted, version, since, marker, tuple(problems), tuple(asked),
        tuple(given_up), retry, changed, _children(objects),
    )  # fmt: skip


def _unique(objects: list[object]) -> list[object]:
    """Each object once (an item in two chosen collections is listed twice)."""
    seen: set[str] = set()
    out: list[object] = []
    for obj in objects:
        key = obj.get("key") if isinstance(obj, dict) else None
        if isinstance(key, str):
            if key in seen:
                continue
            seen.add(key)
        out.append(obj)
    return out


async def _parents(
    reader: ZoteroWebReader, objects: list[object], scope: list[str]
) -> list[object]:
    """The items of children read whose item was not (changed since, or in a chosen
    collection's tree: only the latter are kept when collections were chosen)."""
    have: set[str] = set()
    wanted: set[str] = set()
    for obj in objects:
        data = obj.get("data") if isinstance(obj, dict) else None
        if not isinstance(data, dict):
            continue
        parent = data.get("parentItem")
        if isinstance(parent, str) and parent:
            wanted.add(parent)
        elif isinstance(data.get("key"), str):
            have.add(data["key"])
    out = await _by_keys(reader, sorted(wanted - have))
    return out if not scope else [o for o in out if _in_scope(o, scope)]


def _linked_files(item: ZoteroItem, problems: list[ItemProblem]) -> ZoteroItem:
    """A linked file is on the computer that linked it: zotero.org does not hold it."""
    linked = [a for a in item.attachments if a.link_mode == 2]
    for att in linked:
        problems.append(
            ItemProblem(
                item.key,
                item.title,
                f"{att.key}: a linked file on the computer that added it; zotero.org does "
                "not hold it (import that computer's data directory for it)",
            )
        )
    return (
        replace(item, attachments=tuple(a for a in item.attachments if a.link_mode != 2))
        if linked
        else item
    )


def _md5(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


async def _download(
    reader: ZoteroWebReader,
    item: ZoteroItem,
    files: dict[str, tuple[str, str]],
    files_dir: Path,
    problems: list[ItemProblem],
) -> ZoteroItem:
    """The item's stored PDFs downloaded (unless there with Zotero's md5); an attachment
    whose download failed is left out of the item (its problem reported)."""
    kept: list[ZoteroAttachment] = []
    for att in item.attachments:
        stored = att.link_mode in (0, 1) and att.content_type == "application/pdf"
        if not stored:
            kept.append(att)
            continue
        md5, name = files.get(att.key, ("", ""))
        name = _file_name(att, name)
        target = files_dir / "storage" / att.key / name
        try:
            if not (target.is_file() and md5 and _md5(target) == md5):
                await reader.download(att.key, target)
        except (OSError, LitdeskError) as exc:
            why = exc.message if isinstance(exc, LitdeskError) else str(exc.strerror)
            problems.append(ItemProblem(item.key, item.title, f"{att.key}: {why}"))
            continue
        kept.append(replace(att, path=f"storage:{name}"))
    return replace(item, attachments=tuple(kept))


def _next_retries(read: WebRead, problems: tuple[ItemProblem, ...]) -> dict[str, Retry]:
    """The problem items the next import asks for again: this import's, each counting on
    from the last import's tries (anew when it changed in Zotero, or on a full read). The
    ones given up (reported this time) and those left alone before are kept past
    :data:`MAX_TRIES`: not asked, but their attachments and notes are asked for with them
    once they change (unless deleted in Zotero)."""
    before = read.retry or {}
    children = read.children or {}
    out: dict[str, Retry] = {}
    for p in problems:
        if len(out) >= MAX_KEPT:
            break
        if not p.key or p.key in out:
            continue
        last = before.get(p.key)
        if last is not None and p.key in read.given_up:  # said once now: left alone
            out[p.key] = replace(last, tries=MAX_TRIES + 1)
            continue
        fresh = last is None or read.since is None or p.key in read.changed
        kids = children.get(p.key) or (last.children if last is not None else ())
        out[p.key] = Retry(1 if fresh or last is None else last.tries + 1, p.title, p.problem, kids)
    gone = set(read.deleted or ())
    for key, last in before.items():
        if len(out) >= MAX_KEPT:
            break
        if last.tries > MAX_TRIES and key not in out and key not in read.changed | gone:
            out[key] = last
    return out


def remember_version(
    store: Store, read: WebRead, *, owner: str, problems: tuple[ItemProblem, ...] = ()
) -> None:
    """Keep the version the import read at, for the next import's ``since``, and the
    items of ``problems`` (the import's), for the next import to ask for again."""
    if read.version is None:
        return
    kept = {
        k: {"tries": r.tries, "title": r.title[:300], "problem": r.problem[:500],
            "children": list(r.children[:50])}
        for k, r in _next_retries(read, problems).items()
    }  # fmt: skip
    links = [
        ZoteroLink(read.lib.library, read.marker, SINCE_KIND, "", read.version, ""),
        ZoteroLink(
            read.lib.library, _retry_marker(read.marker), RETRY_KIND,
            json.dumps(kept, ensure_ascii=False), read.version, "",
        ),
    ]  # fmt: skip
    write_links(store, links, owner=owner)
