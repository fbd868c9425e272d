"""One Zotero import is one transaction: an exception or a kill -9 part-way (papers and
Studies written, notes being written) leaves nothing of it — no paper, Study, note or
identity link — and the next import does it all. Language and citation key are kept with
the item's link; standalone notes are reported one by one. Zotero's extracted full text
indexes a scanned PDF (no text layer), marked as such in the library."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from tests import _fork
from tests._zotero_lib import LibraryBuilder

from litdesk import Settings
from litdesk.adapters.zotero._links import read_links
from litdesk.core.library import CHUNKING_VERSION
from litdesk.services.app import App, open_app_sync
from litdesk.services.workspace import Workspace
from litdesk.services.zotero import ZoteroImportRequest

pytestmark = pytest.mark.fixtures

_KILLED_IMPORT = """
import sys, time
from pathlib import Path
from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.workspace import Workspace
from litdesk.services.zotero import ZoteroImportRequest

marker = Path(sys.argv[3])
real = Workspace.add_note_in

def add_note_in(self, *args, **kwargs):
    out = real(self, *args, **kwargs)
    marker.write_text("papers, Studies and a note written; not committed")
    time.sleep(300)  # killed here
    return out

Workspace.add_note_in = add_note_in
with open_app_sync(Settings(data_dir=Path(sys.argv[1]))) as app:
    app.zotero.import_library(ZoteroImportRequest(data_dir=sys.argv[2]), owner=app.owner)
"""


def _library(fixtures_dir: Path, root: Path) -> tuple[LibraryBuilder, dict[str, str]]:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", root / "Zotero", wal=True)
    review = b.collection("Review")
    keys = {
        f"i{i}": b.item(
            fields={
                "title": f"Trial {i}",
                "DOI": f"10.1000/trial.{i}",
                "language": "en-GB",
                "extra": f"Citation Key: smith202{i}",
            },
            collections=[review],
        )
        for i in range(3)
    }
    for key in keys.values():
        b.note(f"<p>Note on {key}</p>", key)
    keys["standalone"] = b.note("<p>Search strategy</p><p>second paragraph</p>")
    return b, keys


def _nothing_imported(app: App) -> None:
    ws = app.workspace()
    assert ws.papers() == [] and ws.notes()[0] == []
    assert [s.name for s, _ in ws.studies()] == []
    assert read_links(app.store, owner=app.owner, library="user") == {}


def test_an_error_part_way_leaves_nothing(fixtures_dir: Path, tmp_path: Path, tmp_settings,
                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    b, keys = _library(fixtures_dir, tmp_path)
    b.close()
    req = ZoteroImportRequest(data_dir=str(b.data_dir), pdfs=False)
    real = Workspace.add_note_in
    calls: list[str] = []

    def failing(self: Workspace, *args: object, **kwargs: object) -> str:
        calls.append("note")
        if len(calls) == 2:  # papers, the Study and one note written by now
            raise OSError("disk gone")
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    with open_app_sync(tmp_settings) as app:
        monkeypatch.setattr(Workspace, "add_note_in", failing)
        with pytest.raises(OSError, match="disk gone"):
            app.zotero.import_library(req, owner=app.owner)
        _nothing_imported(app)
        monkeypatch.setattr(Workspace, "add_note_in", real)
        view = app.zotero.import_library(req, owner=app.owner)
        assert (view.added, view.notes_added) == (3, 3)
        links = read_links(app.store, owner=app.owner, library="user")
        assert links[keys["i1"]].fields == {"language": "en-GB", "citation_key": "smith2021"}
        (standalone,) = [p for p in view.problems if p.key == keys["standalone"]]
        assert standalone.title == "Search strategy" and "standalone" in standalone.problem


def test_a_killed_import_leaves_nothing(fixtures_dir: Path, tmp_path: Path, tmp_settings) -> None:
    b, _keys = _library(fixtures_dir, tmp_path)
    b.close()
    marker = tmp_path / "in-transaction"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = _fork.popen(
        [sys.executable, "-c", _KILLED_IMPORT, str(tmp_settings.data_dir), str(b.data_dir),
         str(marker)],
        env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while not marker.exists():
            assert proc.poll() is None, "the import ended before it was killed"
            assert time.monotonic() < deadline, "the import never reached its notes"
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    with open_app_sync(Settings(data_dir=tmp_settings.data_dir)) as app:
        _nothing_imported(app)
        view = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), pdfs=False), owner=app.owner
        )
        assert (view.added, view.notes_added) == (3, 3)


class _Flat:
    """A tiny embedder (the index needs vectors; this test reads chunks)."""

    name = "flat-test"
    dim = 4

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def test_zotero_full_text_indexes_a_scan(fixtures_dir: Path, tmp_path: Path, tmp_settings) -> None:
    scan = (fixtures_dir / "pdf" / "scanned_no_text_cermine_simple.pdf").read_bytes()
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    item = b.item(fields={"title": "Hydrogen incorporation in a-Si:H", "DOI": "10.1000/scan"})
    cache = (
        "Hydrogen incorporation in a-Si:H - growth studies on an Expanding Thermal Plasma. "
        "The hydrogen content of the films depends on the substrate temperature.\f"
    )
    b.attachment(item, name="scan.pdf", data=scan, full_text=cache)
    b.close()
    with open_app_sync(tmp_settings) as app:
        view = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="Scans"), owner=app.owner
        )
        assert (view.pdfs_attached, view.full_text_caches) == (1, 1)
        lib = app.make_library(embedder=_Flat(), workers=1)
        report = lib.index()
        assert report.excluded == [] and len(report.indexed) == 1, report.to_dict()
        (row,) = lib.file_states(lib.corpus().files)
        assert row["indexed"] and row["text_layer"] is False and row["pages"] == 1
        assert "Zotero's extracted full text" in row["text_source"]
        chunks = lib.catalogue.chunks_of([row["sha256"]], "flat-test", CHUNKING_VERSION)
        assert "substrate temperature" in " ".join(c.text for c in chunks)
