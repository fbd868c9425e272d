"""Zotero Web API v3 JSON (``format=json``, ``include=data``) as the items litdesk reads
(pure): the same :class:`~litdesk.core.zotero.ZoteroItem` the offline reader makes of the
same library, so one mapping (:func:`~litdesk.core.zotero.item_paper_fields`) makes the
records of both.

An API object is ``{"key", "version", "data": {...}}``; ``data`` holds ``itemType``, every
field of the type (empty ones as ``""``), ``creators`` (``creatorType`` with
``firstName``/``lastName`` or ``name``), ``tags`` (``[{"tag": …}]``), ``collections``
(keys), ``dateAdded``/``dateModified`` (ISO 8601, ``Z``), and for a child note or
attachment ``parentItem``; a note its HTML in ``note``; an attachment ``linkMode``
(``imported_file``, ``imported_url``, ``linked_file``, ``linked_url``,
``embedded_image``), ``contentType`` and ``filename``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, TypeGuard

from ._extra import item_identifiers
from ._items import (
    SKIPPED_TYPES,
    ZoteroAttachment,
    ZoteroCollection,
    ZoteroCreator,
    ZoteroItem,
    ZoteroNote,
)

__all__ = ["LINK_MODES", "WebItems", "valid_key", "web_collections", "web_items"]

#: The API's link mode names → the database's numbers (``ZoteroAttachment.link_mode``).
LINK_MODES: Final[dict[str, int]] = {
    "imported_file": 0,
    "imported_url": 1,
    "linked_file": 2,
    "linked_url": 3,
    "embedded_image": 4,
}
# ``data`` members that are not item fields
_NOT_FIELDS: Final = frozenset(
    {
        "key", "version", "itemType", "creators", "tags", "collections", "relations",
        "dateAdded", "dateModified", "parentItem", "deleted", "note", "linkMode",
        "contentType", "charset", "filename", "md5", "mtime", "path", "inPublications",
    }
)  # fmt: skip
_MAX_NAME: Final = 200


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _date(value: object) -> str:
    """``2023-02-26T08:49:43Z`` → ``2023-02-26 08:49:43`` (the database's form, so an
    item imported offline before is the same version when read through the API)."""
    text = _text(value).strip()
    return text.replace("T", " ", 1).removesuffix("Z") if "T" in text else text


def _version(obj: Mapping[str, object], data: Mapping[str, object]) -> int:
    for value in (obj.get("version"), data.get("version")):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return 0


def valid_key(key: object) -> TypeGuard[str]:
    """A Zotero object key as Zotero makes them (8 letters and digits; at most 32 here):
    anything else (``../x``, ``a/b``) is no key — it names folders and URLs."""
    return isinstance(key, str) and 0 < len(key) <= 32 and key.isascii() and key.isalnum()


def _data(obj: object) -> tuple[Mapping[str, object], Mapping[str, object]] | None:
    if not isinstance(obj, Mapping):
        return None
    data = obj.get("data")
    if not isinstance(data, Mapping) or not valid_key(data.get("key") or obj.get("key")):
        return None
    return obj, data


def _creators(raw: object) -> tuple[ZoteroCreator, ...]:
    out: list[ZoteroCreator] = []
    for c in raw if isinstance(raw, list) else ():
        if not isinstance(c, Mapping):
            continue
        role = _text(c.get("creatorType")) or "author"
        if "name" in c:
            out.append(ZoteroCreator(role=role, last=_text(c.get("name")), single=True))
        else:
            out.append(
                ZoteroCreator(
                    role=role, last=_text(c.get("lastName")), first=_text(c.get("firstName"))
                )
            )
    return tuple(out)


def _tags(raw: object) -> tuple[str, ...]:
    names = (
        {_text(t.get("tag")) for t in raw if isinstance(t, Mapping)}
        if isinstance(raw, list)
        else set()
    )
    return tuple(sorted(n for n in names if n))


def _keys(raw: object) -> tuple[str, ...]:
    return tuple(k for k in raw if valid_key(k)) if isinstance(raw, list) else ()


@dataclass(frozen=True, slots=True)
class WebItems:
    """The regular items of API objects (children attached), the standalone notes, each
    collection's member keys, and the attachments' ``md5`` and ``filename`` (by key)."""

    items: tuple[ZoteroItem, ...]
    standalone_notes: tuple[ZoteroNote, ...]
    collection_items: dict[str, tuple[str, ...]] = field(default_factory=dict)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: objects read as nothing (not an object, no key, no item type), by position
    skipped: int = 0
    #: the keys of regular items in the trash (``deleted``; read with ``includeTrashed``)
    trashed: tuple[str, ...] = ()


def web_items(objects: Iterable[object], *, library: str) -> WebItems:
    """Regular items, with their child notes and attachments, of API objects (see the
    module docstring); an item in the trash (``deleted``) is left out, as offline."""
    regular: list[tuple[Mapping[str, object], Mapping[str, object]]] = []
    notes_of: dict[str, list[ZoteroNote]] = defaultdict(list)
    atts_of: dict[str, list[ZoteroAttachment]] = defaultdict(list)
    standalone: list[ZoteroNote] = []
    files: dict[str, tuple[str, str]] = {}
    skipped = 0
    trashed: list[str] = []
    for raw in objects:
        pair = _data(raw)
        if pair is None:
            skipped += 1
            continue
        obj, data = pair
        key = _text(data.get("key") or obj.get("key"))
        kind = _text(data.get("itemType"))
        if data.get("deleted"):
            if kind not in SKIPPED_TYPES:
                trashed.append(key)
            continue
        parent = _text(data.get("parentItem")) or None
        if parent is not None and not valid_key(parent):
            skipped += 1
            continue
        if kind == "note":
            relations = data.get("relations")
            related = relations.get("dc:relation") if isinstance(relations, Mapping) else None
            urls = (
                [related]
                if isinstance(related, str)
                else related
                if isinstance(related, list)
                else []
            )
            note = ZoteroNote(
                key=key,
                html=_text(data.get("note")),
                version=_version(obj, data),
                date_modified=_date(data.get("dateModified")),
                parent_key=parent,
                related=tuple(
                    sorted({str(u).rpartition("/items/")[2] for u in urls if "/items/" in str(u)})
                ),
            )
            (notes_of[parent] if parent else standalone).append(note)
        elif kind == "attachment":
            if parent is None:
                continue  # a standalone file is not a record's attachment
            mode = LINK_MODES.get(_text(data.get("linkMode")), -1)
            name = _text(data.get("filename"))[:_MAX_NAME]
            path = _text(data.get("path")) if mode == 2 else f"storage:{name}" if name else ""
            atts_of[parent].append(
                ZoteroAttachment(
                    key=key,
                    link_mode=mode,
                    content_type=_text(data.get("contentType")),
                    path=path,
                    title=_text(data.get("title")),
                    url=_text(data.get("url")),
                    parent_key=parent,
                )
            )
            files[key] = (_text(data.get("md5")), name)
        elif kind and kind not in SKIPPED_TYPES:
            regular.append((obj, data))
        else:
            skipped += 0 if kind in SKIPPED_TYPES else 1
    items: list[ZoteroItem] = []
    members: dict[str, list[str]] = defaultdict(list)
    for obj, data in regular:
        key = _text(data.get("key") or obj.get("key"))
        fields = {
            k: v for k, v in data.items() if k not in _NOT_FIELDS and isinstance(v, str) and v
        }
        collections = _keys(data.get("collections"))
        for c in collections:
            members[c].append(key)
        items.append(
            ZoteroItem(
                library=library,
                key=key,
                item_type=_text(data.get("itemType")),
                version=_version(obj, data),
                date_added=_date(data.get("dateAdded")),
                date_modified=_date(data.get("dateModified")),
                fields=fields,
                creators=_creators(data.get("creators")),
                tags=_tags(data.get("tags")),
                collections=collections,
                notes=tuple(sorted(notes_of.get(key, ()), key=lambda n: n.key)),
                attachments=tuple(atts_of.get(key, ())),
                identifiers=item_identifiers(fields),
            )
        )
    return WebItems(
        tuple(items),
        tuple(standalone),
        {k: tuple(v) for k, v in members.items()},
        files,
        skipped,
        tuple(trashed),
    )


def web_collections(objects: Iterable[object]) -> tuple[ZoteroCollection, ...]:
    """The collections of ``/collections`` objects (``parentCollection``: a key or
    ``false``), sorted by name as the offline reader sorts them; trashed ones left out."""
    out: list[ZoteroCollection] = []
    for raw in objects:
        pair = _data(raw)
        if pair is None:
            continue
        obj, data = pair
        if data.get("deleted"):
            continue
        parent = data.get("parentCollection")
        parent = parent if valid_key(parent) else None
        out.append(
            ZoteroCollection(
                key=_text(data.get("key") or obj.get("key")),
                name=_text(data.get("name")),
                parent_key=parent if isinstance(parent, str) and parent else None,
            )
        )
    return tuple(sorted(out, key=lambda c: (c.name, c.key)))
