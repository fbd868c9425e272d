"""A Zotero Web API v3 server on loopback for the read paths' tests, serving a library
made from a real ``zotero.sqlite`` (read here with SQL, not with litdesk's reader).

Wire format: ``GET /<library>/collections``, ``/items`` (children included),
``/collections/<key>/items/top``, ``itemKey=`` and ``itemType=note || attachment``
filters, ``since=`` (objects of a newer version), ``format=json``/``limit``/``start``
paging with ``Total-Results`` and ``Link: <…>; rel="next"``, ``Last-Modified-Version`` on
every answer, ``304`` to ``If-Modified-Since-Version`` when nothing is newer,
``/deleted?since=``, ``/items/<key>/file`` answered with a ``302`` to
``https://files.zotero.net/<token>`` (served here too); ``403`` for a wrong key, ``404``
for another library; on demand ``429`` + ``Retry-After``, ``Backoff``, a redirect of the
file elsewhere, a listing claiming too many results, an oversized answer. Every request
is kept (path, query, headers)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from contextlib import closing
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

LINK_MODES = {0: "imported_file", 1: "imported_url", 2: "linked_file", 3: "linked_url", 4: "embedded_image"}  # fmt: skip


def _iso(value: str) -> str:
    return value.replace(" ", "T") + "Z"


def _table(conn: sqlite3.Connection, combined: str, base: str) -> str:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return combined if combined in names else base


def library_json(data_dir: Path) -> tuple[list[dict], list[dict], dict[str, Path]]:
    """``(items, collections, {attachment key: file})`` of the user library in
    ``data_dir/zotero.sqlite`` as the Web API gives them (trash left out)."""
    conn = sqlite3.connect(f"{(data_dir / 'zotero.sqlite').as_uri()}?mode=ro", uri=True)
    with closing(conn):
        types = _table(conn, "itemTypesCombined", "itemTypes")
        fields = _table(conn, "fieldsCombined", "fields")
        deleted = {r[0] for r in conn.execute("SELECT itemID FROM deletedItems")}
        keys = dict(conn.execute("SELECT itemID, key FROM items"))
        coll_keys = dict(conn.execute("SELECT collectionID, key FROM collections"))
        collections = [
            {
                "key": key,
                "version": 1,
                "data": {
                    "key": key,
                    "version": 1,
                    "name": name,
                    "parentCollection": coll_keys.get(parent, False) if parent else False,
                    "relations": {},
                },
            }
            for cid, key, name, parent in conn.execute(
                "SELECT collectionID, key, collectionName, parentCollectionID FROM collections"
            )
        ]
        items: list[dict] = []
        files: dict[str, Path] = {}
        rows = conn.execute(
            f"SELECT i.itemID, i.key, t.typeName, i.dateAdded, i.dateModified FROM items i"
            f" JOIN {types} t USING (itemTypeID) ORDER BY i.itemID"
        ).fetchall()
        for item_id, key, type_name, added, modified in rows:
            if item_id in deleted or type_name == "annotation":
                continue
            data: dict[str, object] = {"key": key, "version": 0, "itemType": type_name}
            for name, value in conn.execute(
                f"SELECT f.fieldName, v.value FROM itemData d JOIN {fields} f USING (fieldID)"
                " JOIN itemDataValues v USING (valueID) WHERE d.itemID = ?",
                (item_id,),
            ):
                data[name] = str(value)
            data["creators"] = [
                {"creatorType": role, "name": last}
                if mode
                else {"creatorType": role, "firstName": first, "lastName": last}
                for role, first, last, mode in conn.execute(
                    "SELECT ct.creatorType, c.firstName, c.lastName, c.fieldMode FROM itemCreators ic"
                    " JOIN creators c USING (creatorID) JOIN creatorTypes ct USING (creatorTypeID)"
                    " WHERE ic.itemID = ? ORDER BY ic.orderIndex",
                    (item_id,),
                )
            ]
            data["tags"] = [
                {"tag": name, "type": kind}
                for name, kind in conn.execute(
                    "SELECT t.name, it.type FROM itemTags it JOIN tags t USING (tagID) WHERE it.itemID = ?",
                    (item_id,),
                )
            ]
            data["collections"] = [
                coll_keys[c]
                for (c,) in conn.execute(
                    "SELECT collectionID FROM collectionItems WHERE itemID = ?", (item_id,)
                )
            ]
            data["relations"] = {}
            data["dateAdded"], data["dateModified"] = _iso(added), _iso(modified)
            note = conn.execute(
                "SELECT parentItemID, note FROM itemNotes WHERE itemID = ?", (item_id,)
            ).fetchone()
            if note is not None:
                data["note"] = note[1] or ""
                if note[0] is not None:
                    data["parentItem"] = keys[note[0]]
                for (obj,) in conn.execute(
                    "SELECT r.object FROM itemRelations r JOIN relationPredicates p"
                    " USING (predicateID) WHERE r.itemID = ? AND p.predicate = 'dc:relation'",
                    (item_id,),
                ):
                    data["relations"] = {"dc:relation": [obj]}
            att = conn.execute(
                "SELECT parentItemID, linkMode, contentType, path FROM itemAttachments WHERE itemID = ?",
                (item_id,),
            ).fetchone()
            if att is not None:
                parent, mode, content_type, path = att
                if parent is not None:
                    data["parentItem"] = keys[parent]
                data["linkMode"] = LINK_MODES.get(mode, "imported_file")
                data["contentType"] = content_type or ""
                path = path or ""
                if path.startswith("storage:"):
                    name = path.removeprefix("storage:")
                    data["filename"] = name
                    file = data_dir / "storage" / key / name
                    if file.is_file():
                        files[key] = file
                        data["md5"] = hashlib.md5(file.read_bytes()).hexdigest()
                elif mode == 2:
                    data["path"] = path
            items.append({"key": key, "version": 0, "data": data})
    return items, collections, files


@dataclass
class Got:
    path: str
    query: dict[str, str]
    headers: dict[str, str]


@dataclass
class WebState:
    library: str = "users/123"
    api_key: str | None = "K" * 24
    version: int = 0
    items: dict[str, dict] = field(default_factory=dict)
    collections: dict[str, dict] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)  # key → version deleted at
    received: list[Got] = field(default_factory=list)
    throttle_next: int = 0
    backoff: str | None = None
    file_host: str = "files.zotero.net"
    claim_total: int | None = None  # Total-Results of every listing (a hostile one)
    oversize: bool = False  # every listing answers with more bytes than any limit
    serve_304: bool = True
    redirect: bool = False  # every API request answered with a redirect elsewhere

    @classmethod
    def from_library(cls, data_dir: Path, **kw: object) -> WebState:
        items, collections, files = library_json(data_dir)
        state = cls(**kw)  # type: ignore[arg-type]
        for c in collections:
            state.version += 1
            c["version"] = c["data"]["version"] = state.version
            state.collections[c["key"]] = c
        for obj in items:
            state.version += 1
            obj["version"] = obj["data"]["version"] = state.version
            state.items[obj["key"]] = obj
        state.files = {k: p.read_bytes() for k, p in files.items()}
        return state

    def change(self, key: str, **data: object) -> None:
        """The item ``key`` edited in Zotero (a new version of it and of the library)."""
        self.version += 1
        obj = self.items[key]
        obj["data"].update(data)
        obj["version"] = obj["data"]["version"] = self.version
        obj["data"]["dateModified"] = f"2026-12-06T10:00:{self.version % 60:02d}Z"

    def add(self, obj: dict) -> None:
        self.version += 1
        obj["version"] = obj["data"]["version"] = self.version
        self.items[obj["key"]] = obj

    def trash(self, key: str) -> None:
        """The item ``key`` put in the trash (listed only with ``includeTrashed=1``)."""
        self.change(key, deleted=1)

    def delete(self, key: str) -> None:
        self.version += 1
        del self.items[key]
        self.deleted[key] = self.version


class _Handler(BaseHTTPRequestHandler):
    state: WebState
    port: int

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified-Version", str(self.state.version))
        if self.state.backoff:
            self.send_header("Backoff", self.state.backoff)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: object, headers: dict[str, str] | None = None) -> None:
        self._send(
            status,
            json.dumps(obj).encode(),
            {"Content-Type": "application/json", **(headers or {})},
        )

    def do_GET(self) -> None:  # one dispatcher of the wire format
        s = self.state
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        s.received.append(Got(url.path, query, dict(self.headers.items())))
        if url.path.startswith("/storage/"):  # the file storage host (no key wanted)
            token = url.path.removeprefix("/storage/")
            if token in s.files:
                self._send(200, s.files[token], {"Content-Type": "application/pdf"})
            else:
                self._json(404, {"error": "Not found"})
            return
        if s.redirect:
            self._send(302, b"", {"Location": "https://elsewhere.example/steal"})
            return
        if s.throttle_next:
            s.throttle_next -= 1
            self._json(429, {"error": "rate limited"}, {"Retry-After": "2"})
            return
        if self.headers.get("Zotero-API-Version") != "3":
            self._json(400, {"error": "API version 3 only"})
            return
        if s.api_key is not None and self.headers.get("Zotero-API-Key") != s.api_key:
            self._json(403, {"error": "Forbidden"})
            return
        prefix = f"/{s.library}/"
        if not url.path.startswith(prefix):
            self._json(404, {"error": "Not found"})
            return
        rest = url.path.removeprefix(prefix)
        since = int(query.get("since", "0"))
        if rest == "deleted":
            gone = [k for k, v in s.deleted.items() if v > since]
            self._json(
                200, {"items": gone, "collections": [], "searches": [], "tags": [], "settings": []}
            )
            return
        if rest.startswith("items/") and rest.endswith("/file"):
            key = rest.split("/")[1]
            if key not in s.files:
                self._json(404, {"error": "Not found"})
                return
            self._send(302, b"", {"Location": f"https://{s.file_host}/storage/{key}"})
            return
        guard = self.headers.get("If-Modified-Since-Version")
        if guard is not None and s.serve_304 and s.version <= int(guard):
            self._send(304, b"")
            return
        if rest == "collections":
            objects = list(s.collections.values())
        elif rest == "items":
            objects = list(s.items.values())
        elif rest.startswith("collections/") and rest.endswith("/items/top"):
            ckey = rest.split("/")[1]
            if ckey not in s.collections:
                self._json(404, {"error": "Collection not found"})
                return
            objects = [
                o for o in s.items.values()
                if ckey in o["data"].get("collections", []) and "parentItem" not in o["data"]
            ]  # fmt: skip
        else:
            self._json(404, {"error": "Not found"})
            return
        if query.get("includeTrashed") != "1":
            objects = [o for o in objects if not o["data"].get("deleted")]
        if "itemKey" in query:
            wanted = set(query["itemKey"].split(","))
            objects = [o for o in objects if o["key"] in wanted]
        if "itemType" in query:
            kinds = {k.strip() for k in query["itemType"].split("||")}
            objects = [o for o in objects if o["data"].get("itemType") in kinds]
        if "since" in query:
            objects = [o for o in objects if o["version"] > since]
        if query.get("sort") == "dateAdded":
            objects.sort(key=lambda o: (o["data"].get("dateAdded", ""), o["key"]))
        start, limit = int(query.get("start", "0")), min(int(query.get("limit", "25")), 100)
        page = objects[start : start + limit]
        headers = {"Total-Results": str(s.claim_total or len(objects))}
        if start + limit < len(objects):
            headers["Link"] = (
                f'<http://127.0.0.1/{s.library}/{rest}?start={start + limit}>; rel="next"'
            )
        if s.oversize:
            self._send(200, b"[" + b" " * (5 * 1024 * 1024) + b"]", headers)
            return
        self._json(200, page, headers)


class WebServer:
    """The server on 127.0.0.1 (an ephemeral port) in a thread; a context manager."""

    def __init__(self, state: WebState) -> None:
        handler = type("Handler", (_Handler,), {"state": state})
        self.state = state
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> WebServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)
