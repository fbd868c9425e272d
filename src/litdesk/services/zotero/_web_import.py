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

__all__ = ["WebRead", "read_web", "remember_version"]

SINCE_KIND: Final = "since"
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
    objects.extend(await _parents(reader, objects, scope))
    read = web_items(_unique(objects), library=library)
    problems: list[ItemProblem] = []
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
    return WebRead(lib, deleted, version, since, marker, tuple(problems))


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
    missing = sorted(wanted - have)
    out: list[object] = []
    for i in range(0, len(missing), _KEYS_PER_REQUEST):
        chunk = ",".join(missing[i : i + _KEYS_PER_REQUEST])
        got = await reader.listing("items", params={"itemKey": chunk})
        out.extend(got.objects)
    if not scope:
        return out
    inside = set(scope)

    def in_scope(obj: object) -> bool:
        data = obj.get("data") if isinstance(obj, dict) else None
        colls = data.get("collections") if isinstance(data, dict) else None
        return isinstance(colls, list) and bool(
            inside.intersection(c for c in colls if isinstance(c, str))
        )

    return [o for o in out if in_scope(o)]


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


def remember_version(store: Store, read: WebRead, *, owner: str) -> None:
    """Keep the version the import read at, for the next import's ``since``."""
    if read.version is None:
        return
    link = ZoteroLink(read.lib.library, read.marker, SINCE_KIND, "", read.version, "")
    write_links(store, [link], owner=owner)
