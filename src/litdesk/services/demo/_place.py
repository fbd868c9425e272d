"""Where the demo workspace lives and how it is (re)made: its own directory (never the
data directory or anything inside or around it), built aside and swapped in whole, marked
so that a reset only ever removes a demo workspace."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from litdesk._errors import ConfigError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.demo import DEMO_EXPORT, data_file, sample_index

from ._build import DemoStudy, build_study

__all__ = [
    "DEMO_MARKER",
    "DemoPlace",
    "DemoReset",
    "build_demo",
    "demo_export",
    "demo_place",
    "demo_settings",
    "ensure_demo",
    "reset_demo",
    "warm_sample",
]

#: the file that marks a directory as a demo workspace (a reset removes nothing else)
DEMO_MARKER: Final = ".litdesk-demo"
_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class DemoPlace:
    """The demo workspace's directory, its store, and the export a newcomer imports."""

    directory: Path
    export: Path
    exists: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "export": str(self.export),
            "exists": self.exists,
        }


@dataclass(frozen=True, slots=True)
class DemoReset:
    """A (re)made demo workspace: where, what it holds and how long it took."""

    place: DemoPlace
    study: DemoStudy
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "place": self.place.to_dict(),
            "study": self.study.to_dict(),
            "seconds": round(self.seconds, 1),
        }


def _inside(a: Path, b: Path) -> bool:
    return a == b or b in a.parents


def _checked(directory: Path, settings: Settings) -> Path:
    demo = directory.expanduser().resolve()
    real = settings.resolved_data_dir().expanduser().resolve()
    if _inside(demo, real) or _inside(real, demo):
        raise ConfigError(
            f"the demo workspace ({demo}) must be apart from your data directory ({real}): "
            "set LITDESK_DEMO_DIR to another folder",
            code="demo_dir",
        )
    return demo


def demo_place(settings: Settings, directory: Path | None = None) -> DemoPlace:
    """Where the demo workspace of ``settings`` is (``directory`` overrides the setting)."""
    demo = _checked(directory or settings.resolved_demo_dir(), settings)
    return DemoPlace(demo, demo / "files" / DEMO_EXPORT, (demo / DEMO_MARKER).is_file())


def demo_settings(settings: Settings, directory: Path | None = None) -> Settings:
    """``settings`` for the demo workspace (its own directory and SQLite store)."""
    return settings.for_demo(demo_place(settings, directory).directory)


def _remove_demo(path: Path) -> None:
    """Remove ``path`` when it is a demo workspace (or empty); refuse anything else."""
    if not path.exists():
        return
    if not path.is_dir() or path.is_symlink():
        raise RefusedError(f"{path} is not a folder: not removed", code="demo_not_demo")
    if not (path / DEMO_MARKER).is_file() and any(path.iterdir()):
        raise RefusedError(
            f"{path} holds files but is not a litdesk demo workspace: nothing was removed "
            "(choose an empty folder with LITDESK_DEMO_DIR)",
            code="demo_not_demo",
        )
    shutil.rmtree(path)


def build_demo(directory: Path, settings: Settings | None = None) -> DemoReset:
    """(Re)make the demo workspace in ``directory`` from the bundled files: built in a
    folder beside it, then swapped in (an earlier demo workspace there is removed; a
    folder that is not one is refused). ``settings`` default to the environment's."""
    started = time.monotonic()
    base = settings or Settings()
    target = _checked(directory, base)
    if target.exists() and not (target / DEMO_MARKER).is_file() and any(target.iterdir()):
        _remove_demo(target)  # refuses before any work: not a demo workspace
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = target.with_name(f".{target.name}.building-{os.getpid()}")
    _remove_demo(aside)  # a build of this process id that was cut short
    aside.mkdir()
    (aside / DEMO_MARKER).write_text(json.dumps({"version": _VERSION, "state": "building"}))
    try:
        study = build_study(base.for_demo(aside), aside / "files")
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    (aside / DEMO_MARKER).write_text(
        json.dumps({"version": _VERSION, "state": "ready", "study": study.study_id})
    )
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    aside.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    made = replace(study, files=tuple(target / "files" / p.name for p in study.files))
    return DemoReset(demo_place(base, target), made, time.monotonic() - started)


def reset_demo(settings: Settings, directory: Path | None = None) -> DemoReset:
    """``litdesk demo reset``: the demo workspace of ``settings`` made anew."""
    return build_demo(demo_place(settings, directory).directory, settings)


def ensure_demo(settings: Settings, directory: Path | None = None) -> DemoPlace:
    """The demo workspace, made on first use (``litdesk serve --demo``)."""
    place = demo_place(settings, directory)
    if not place.exists:
        build_demo(place.directory, settings)
        place = demo_place(settings, directory)
    return place


def warm_sample() -> None:
    """Build the demo sample's index in the background (the first demo search then answers
    at once instead of after the ~2 s the index takes)."""
    threading.Thread(target=sample_index, name="demo-sample-index", daemon=True).start()


def demo_export() -> bytes:
    """The demo export (RIS) a newcomer imports into the demo Study (the bundled file)."""
    return data_file(DEMO_EXPORT)
