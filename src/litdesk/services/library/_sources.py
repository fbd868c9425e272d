"""Where the library's PDFs come from: folders from settings, added folders, the inbox.

Order (earlier wins on a duplicate file name; the shadowed files are named in a
warning), as the reference and issue 15 give it: folders or files added with
``litdesk library add`` (persisted in ``<data dir>/library/folders.json``, recursive), then
the inbox (flat: the ``inbox_dir`` setting or ``<data dir>/library/inbox``, where the web
page's uploads go), then the ``library_dirs`` setting (recursive).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from litdesk._errors import InputError, IntegrityError, NotFoundError
from litdesk.adapters.pdf import file_kind
from litdesk.core.words import plural

__all__ = [
    "Corpus",
    "LibraryFile",
    "Source",
    "UnknownPapers",
    "add_source",
    "discover",
    "load_added",
    "path_of",
    "remove_source",
]

MAX_FILES = 200_000


class UnknownPapers(NotFoundError):
    """Named papers are not in the library (the message lists the real names)."""

    default_code = "unknown_papers"


@dataclass(frozen=True, slots=True)
class Source:
    """One place PDFs are read from."""

    path: Path
    recursive: bool
    origin: str  # "settings", "added", "inbox"


@dataclass(frozen=True, slots=True)
class LibraryFile:
    """A PDF of the library: its file name (the name users pass), path and source."""

    name: str
    path: Path
    origin: str


@dataclass
class Corpus:
    """The library's files after the duplicate rule, and the warnings it produced."""

    files: list[LibraryFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the other hosts' PDFs on their way to this host: ``(name, sha256)`` (``None``: an
    #: upload, known by name only), not listed in ``files`` until copied (a shared object
    #: store)
    arriving: list[tuple[str, str | None]] = field(default_factory=list)

    def names(self) -> list[str]:
        return [f.name for f in self.files]

    def select(self, names: list[str] | None) -> list[LibraryFile]:
        """The named files (exact names, in the order given); unknown names are rejected."""
        if not names:
            return list(self.files)
        by_name = {f.name: f for f in self.files}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            real = ", ".join(self.names()) or "(the library is empty)"
            raise UnknownPapers(
                f"not in the library: {', '.join(unknown)}. The library has: {real}",
                unknown=unknown,
                available=self.names(),
            )
        return [by_name[n] for n in dict.fromkeys(names)]


def path_of(files: list[LibraryFile], hashes: dict[Path, str], sha: str) -> Path:
    """The path of the first of ``files`` whose content hash is ``sha``."""
    for f in files:
        if hashes.get(f.path) == sha:
            return f.path
    raise LookupError(sha)


def _folders_file(data_dir: Path) -> Path:
    return data_dir / "library" / "folders.json"


def load_added(data_dir: Path) -> list[Path]:
    """Folders and files added with ``library add`` (in the order added)."""
    path = _folders_file(data_dir)
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IntegrityError(f"unreadable library folder list {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("paths"), list):
        raise IntegrityError(f"malformed library folder list {path}")
    return [Path(p) for p in data["paths"] if isinstance(p, str)]


def _save_added(data_dir: Path, paths: list[Path]) -> None:
    path = _folders_file(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"paths": [str(p) for p in paths]}, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def add_source(data_dir: Path, path: Path) -> tuple[Path, bool]:
    """Add a folder (read recursively) or one PDF; returns (absolute path, newly added)."""
    target = path.expanduser().resolve()
    try:
        mode = target.stat().st_mode  # never opened: a FIFO or device is refused unread
    except OSError:
        raise InputError(f"no such folder or file: {path}", code="no_such_path") from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise InputError(
            f"{path} is {file_kind(mode)}: add a folder or a PDF file", code="not_regular"
        )
    if stat.S_ISREG(mode) and target.suffix.lower() != ".pdf":
        raise InputError(f"not a PDF file: {path}", code="not_pdf")
    added = load_added(data_dir)
    if target in added:
        return target, False
    _save_added(data_dir, [*added, target])
    return target, True


def remove_source(data_dir: Path, path: Path) -> Path:
    """Remove an added folder or file (its index entries stay cached by content hash)."""
    added = load_added(data_dir)
    target = path.expanduser().resolve()
    for cand in (target, path):
        if cand in added:
            _save_added(data_dir, [p for p in added if p != cand])
            return cand
    listed = ", ".join(str(p) for p in added) or "(none)"
    raise NotFoundError(
        f"not an added library folder: {path}. Added: {listed}", code="no_such_source"
    )


def _regular(path: Path, skipped: list[str]) -> bool:
    """Whether ``path`` (followed if a link) is a regular file; else its reason is noted.

    Only ``stat``: a FIFO, device or socket is never opened (opening a FIFO blocks).
    """
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        skipped.append(f"{path} (cannot read: {exc.strerror})")
        return False
    if stat.S_ISREG(mode):
        return True
    skipped.append(f"{path} ({file_kind(mode)})")
    return False


def _walk(source: Source, skipped: list[str]) -> list[Path]:
    root = source.path
    try:
        mode = root.stat().st_mode
    except OSError:
        return []
    if not stat.S_ISDIR(mode):
        if root.suffix.lower() != ".pdf" and stat.S_ISREG(mode):
            return []
        return [root] if _regular(root, skipped) else []
    out: list[Path] = []
    _scan(root, source.recursive, out, skipped)
    return out


def _scan(folder: Path, recursive: bool, out: list[Path], skipped: list[str]) -> None:
    """PDFs under ``folder`` in name order (sub-folders after the files of a folder, hidden
    folders and links to folders not entered). ``DirEntry.is_file`` tells a regular file
    from the directory listing's type (a ``stat`` only for links): FIFOs, sockets and
    devices are skipped with their reason, never opened."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        skipped.append(f"{folder} (cannot read: {exc.strerror})")
        return
    subdirs: list[Path] = []
    for e in entries:
        try:
            is_dir = e.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if recursive and not e.name.startswith(".") and not e.is_symlink():
                subdirs.append(Path(e.path))
            continue
        if not e.name.lower().endswith(".pdf"):
            continue
        path = Path(e.path)
        try:
            regular = e.is_file()
        except OSError:
            regular = False
        if regular or _regular(path, skipped):  # _regular names the reason
            out.append(path)
        if len(out) > MAX_FILES:
            raise InputError(f"more than {MAX_FILES} PDFs under {folder}", code="too_many_files")
    for sub in subdirs:
        _scan(sub, recursive, out, skipped)


def discover(sources: list[Source]) -> Corpus:
    """The library's PDFs: earlier sources win on a duplicate file name."""
    corpus = Corpus()
    seen: dict[str, LibraryFile] = {}
    shadowed: list[str] = []
    missing: list[str] = []
    skipped: list[str] = []
    for source in sources:
        if not source.path.exists():
            missing.append(str(source.path))
            continue
        for path in _walk(source, skipped):
            name = path.name
            if name in seen:
                shadowed.append(f"{path} (shadowed by {seen[name].path})")
                continue
            f = LibraryFile(name, path, source.origin)
            seen[name] = f
            corpus.files.append(f)
    if shadowed:
        corpus.warnings.append(
            f"{plural(len(shadowed), 'file')} with a duplicate name shadowed by an earlier "
            "source: " + "; ".join(shadowed)
        )
    if missing:
        corpus.warnings.append(
            f"{plural(len(missing), 'library folder')} not found: " + ", ".join(missing)
        )
    if skipped:
        corpus.warnings.append(
            f"{plural(len(skipped), 'path')} skipped, not a regular file: " + "; ".join(skipped)
        )
    return corpus
