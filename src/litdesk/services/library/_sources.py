"""Where the library's PDFs come from: folders from settings, added folders, the inbox.

Order (earlier wins on a duplicate file name; the shadowed files are named in a
warning): the ``library_dirs`` setting, then folders or files added with
``litdesk library add`` (persisted in ``<data dir>/library/folders.json``), both
read recursively, then the inbox (flat).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from litdesk._errors import InputError, IntegrityError, NotFoundError

__all__ = [
    "Corpus",
    "LibraryFile",
    "Source",
    "UnknownPapers",
    "add_source",
    "discover",
    "load_added",
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
    if not target.exists():
        raise InputError(f"no such folder or file: {path}", code="no_such_path")
    if target.is_file() and target.suffix.lower() != ".pdf":
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


def _walk(source: Source) -> list[Path]:
    root = source.path
    if root.is_file():
        return [root] if root.suffix.lower() == ".pdf" else []
    if not root.is_dir():
        return []
    if not source.recursive:
        return sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        out.extend(Path(dirpath) / f for f in sorted(filenames) if f.lower().endswith(".pdf"))
        if len(out) > MAX_FILES:
            raise InputError(f"more than {MAX_FILES} PDFs under {root}", code="too_many_files")
    return out


def discover(sources: list[Source]) -> Corpus:
    """The library's PDFs: earlier sources win on a duplicate file name."""
    corpus = Corpus()
    seen: dict[str, LibraryFile] = {}
    shadowed: list[str] = []
    missing: list[str] = []
    for source in sources:
        if not source.path.exists():
            missing.append(str(source.path))
            continue
        for path in _walk(source):
            name = path.name
            if name in seen:
                shadowed.append(f"{path} (shadowed by {seen[name].path})")
                continue
            f = LibraryFile(name, path, source.origin)
            seen[name] = f
            corpus.files.append(f)
    if shadowed:
        corpus.warnings.append(
            f"{len(shadowed)} file(s) with a duplicate name are shadowed by an earlier source: "
            + "; ".join(shadowed)
        )
    if missing:
        corpus.warnings.append("library folder(s) not found: " + ", ".join(missing))
    return corpus
