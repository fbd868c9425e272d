"""PDFs of one host's folders, for every host: the files of folders added with ``library
add``, the Zotero import's linked attachments and the ``library_dirs`` setting live on the
disk of the host they were named on. With a shared object store each such PDF is also
stored under its content hash — ``library/pdfs/<sha256>/<name>``, with the texts the
indexer reads beside it (Zotero's extracted full text) — and the other hosts keep a copy
in ``<data dir>/library/pdfs/<sha256>/<name>``, one more source of their library
(``shared``): listed at most every ``object_store_sync_seconds`` when the library is looked
at (copying for at most :data:`COPY_BUDGET` seconds a listing), and fetched at once when a
page asks for a content hash the host does not hold yet (the viewer, the page images, the
PDF's record page).

A host never copies what its own folders hold (the same content hash); a downloaded file
whose content does not match its hash is left out (logged), never served.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from litdesk._errors import InputError
from litdesk.adapters.objects import ObjectMissing, ObjectStoreError, ObjectTooLarge, check_key

from ._indexer import SIDE_TEXTS
from ._shelf import Shelf, write_atomic

log = logging.getLogger(__name__)

__all__ = ["COPY_BUDGET", "SHARED_ORIGIN", "SharedPdf", "SharedPdfs"]

#: the origin of the shared copies among the library's sources
SHARED_ORIGIN: Final = "shared"
#: seconds one listing spends copying PDFs (a page that looks at the library never waits
#: for a whole library to arrive: the rest come with the next listings; a PDF asked for by
#: its hash is copied at once)
COPY_BUDGET: Final = 10.0
_SHA = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class SharedPdf:
    """One PDF of a host's folder to store for the others: where it is, its content hash
    and the name the library knows it by."""

    path: Path
    sha256: str
    name: str


class SharedPdfs:
    """The ``library/pdfs/`` part of the shelf (see the module)."""

    def __init__(
        self,
        shelf: Shelf,
        mirror: Path,
        *,
        budget: float = COPY_BUDGET,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.shelf = shelf
        #: seconds one listing spends copying (see :data:`COPY_BUDGET`)
        self.budget = budget
        self._monotonic = monotonic
        #: this host's copies of the other hosts' PDFs (a source of the library)
        self.mirror = mirror
        self.prefix = shelf.key(mirror) + "/"
        #: content hashes this host's own folders were found to hold (not copied; asked
        #: again only for hashes not in here, so a host's own PDFs cost no walk per listing)
        self._mine: set[str] = set()

    def _stored(self, sha: str | None = None) -> dict[str, list[tuple[str, int]]]:
        """The store's files by content hash: ``{sha: [(name, size), …]}`` (one listing)."""
        out: dict[str, list[tuple[str, int]]] = {}
        for o in self.shelf.objects.list(self.prefix + (f"{sha}/" if sha else "")):
            got, _, name = o.key[len(self.prefix) :].partition("/")
            if _SHA.fullmatch(got) and _safe_name(name):
                out.setdefault(got, []).append((name, o.size))
        return out

    def publish(self, pdfs: Iterable[SharedPdf]) -> list[str]:
        """Store each of ``pdfs`` the store lacks under its content hash and name (one
        listing, then one request per new file and per text beside it); what could not be
        stored, for the caller's warnings (the PDF stays this host's meanwhile; the next
        index tries again)."""
        wanted = [p for p in pdfs if _SHA.fullmatch(p.sha256)]
        if not self.shelf.shared or not wanted:
            return []
        problems: list[str] = []
        try:
            held = self._stored()
        except ObjectStoreError as exc:
            return [f"the PDFs were not stored for the other servers: {exc.message}"]
        for pdf in wanted:  # each name: a scope names PDFs by name on every host
            names = held.setdefault(pdf.sha256, [])
            if any(n == pdf.name for n, _size in names):
                continue
            names.append((pdf.name, 0))
            try:
                self._put(pdf)
            except (ObjectStoreError, ObjectTooLarge, InputError, OSError) as exc:
                why = exc.message if isinstance(exc, InputError | ObjectStoreError) else str(exc)
                problems.append(f"{pdf.name} was not stored for the other servers: {why}")
        return problems

    def _put(self, pdf: SharedPdf) -> None:
        folder = f"{self.prefix}{pdf.sha256}/"
        check_key(folder + pdf.name)
        for suffix in SIDE_TEXTS:  # the text the indexer reads beside it, stored first
            side = pdf.path.with_name(pdf.path.name + suffix)
            if side.is_file():
                self.shelf.objects.put(folder + pdf.name + suffix, side.read_bytes())
        self.shelf.objects.put(folder + pdf.name, pdf.path.read_bytes())

    def sync(
        self,
        own: Callable[[], set[str]],
        *,
        force: bool = False,
        sha: str | None = None,
    ) -> list[tuple[Path, str]]:
        """Copy the store's PDFs this host lacks into the mirror (listed at most every
        ``sync_seconds`` unless ``force``; ``sha``: that PDF only, at once). ``own()``: the
        content hashes this host's own sources hold (asked only when something is
        missing). The copies made: ``[(path, sha256), …]``."""
        if not self.shelf.shared:
            return []
        if sha is None and not self.shelf.due(self.mirror, force=force):
            return []
        if sha is not None and not _SHA.fullmatch(sha):
            return []
        stored = self._stored(sha)
        missing = {
            s: names
            for s, names in stored.items()
            if not _held(self.mirror / s, names)
        }  # fmt: skip
        for s in self._mine & missing.keys():
            del missing[s]
        if not missing:
            return []
        self._mine |= own() & missing.keys()
        made: list[tuple[Path, str]] = []
        start = self._monotonic()
        for s, names in sorted(missing.items()):
            if s in self._mine:
                continue
            if sha is None and self._monotonic() - start > self.budget:
                break  # the rest at the next listing
            for name, _size in sorted(names, key=lambda n: n[0].lower().endswith(".pdf")):
                path = self.mirror / s / name  # texts beside first: the PDF is then whole
                if path.is_file() and path.stat().st_size == _size:
                    continue
                try:
                    data = self.shelf.objects.get(f"{self.prefix}{s}/{name}")
                except (ObjectMissing, ObjectTooLarge):
                    continue  # deleted meanwhile, or over the limit: not copied
                pdf = name.lower().endswith(".pdf")
                if pdf and hashlib.sha256(data).hexdigest() != s:
                    log.warning("the object store's copy of %s does not match its hash", s[:12])
                    continue
                write_atomic(path, data)
                if pdf:
                    made.append((path, s))
        return made


def _safe_name(name: str) -> bool:
    """A file name the mirror may hold: one path part, not hidden, a safe key."""
    if not name or "/" in name or name.startswith("."):
        return False
    try:
        check_key(name)
    except InputError:
        return False
    return True


def _held(folder: Path, names: list[tuple[str, int]]) -> bool:
    """Whether ``folder`` has each of ``names`` at its size."""
    for name, size in names:
        try:
            if (folder / name).stat().st_size != size:
                return False
        except OSError:
            return False
    return True
