"""Import service: many files, each traced or refused side by side."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk.core.imports import ImportRefused
from litdesk.services.imports import convert_files, import_files

GOOD = b"TY  - JOUR\nTI  - Good\nDO  - 10.1000/good\nER  - \n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "good": tmp_path / "good.ris",
        "empty": tmp_path / "empty.ris",
        "dups": tmp_path / "dups.ris",
        "prose": tmp_path / "prose.txt",
        "nbib": tmp_path / "one.nbib",
    }
    out["good"].write_bytes(GOOD)
    out["empty"].write_bytes(b"")
    out["dups"].write_bytes(b"TY  - JOUR\nID  - 1\nER  - \nTY  - JOUR\nID  - 1\nER  - \n")
    out["prose"].write_bytes(b"Dear reviewer, please find attached.\n")
    out["nbib"].write_bytes(b"PMID- 42\nTI  - Medline one\n")
    return out


def test_refused_files_never_stop_the_others(files: dict[str, Path], tmp_path: Path) -> None:
    order = ["empty", "good", "dups", "prose", "nbib"]
    seen: list[tuple[str, int]] = []
    batch = import_files(
        [files[k] for k in order] + [tmp_path / "missing.ris"],
        on_file=lambda p, n: seen.append((Path(p).name, n)),
        strict_ids=True,
    )
    assert [t.source.format for t in batch.imports] == ["ris", "medline"]
    assert [p.title for p in batch.papers] == ["Good", "Medline one"]
    assert [(Path(r.path).name, r.code) for r in batch.refused] == [
        ("empty.ris", "empty"),
        ("dups.ris", "duplicate_ids"),
        ("prose.txt", "unsupported"),
        ("missing.ris", "file_not_found"),
    ]
    assert seen[0] == ("empty.ris", 0) and seen[-1] == ("missing.ris", -1)
    assert batch.record_count == 2


def test_batch_json_shape(files: dict[str, Path]) -> None:
    doc = import_files([files["good"], files["empty"]]).to_dict()
    assert set(doc) == {"imports", "refused"}
    imp = doc["imports"][0]
    assert set(imp) == {"source", "records", "notices"}
    assert set(imp["source"]) == {"path", "sha256", "bytes", "format", "encoding", "parser"}
    assert set(imp["source"]["parser"]) == {"id", "version"}
    rec = imp["records"][0]
    assert set(rec) == {"digest", "lines", "paper", "notices"}
    assert rec["lines"] == [1, 4]
    assert rec["paper"]["doi"] == "10.1000/good"
    assert doc["refused"] == [
        {"path": str(files["empty"]), "code": "empty", "message": "the file is empty"}
    ]


def test_forced_format_and_unknown_format(files: dict[str, Path]) -> None:
    batch = import_files([files["prose"]], format="ris")
    assert [r.code for r in batch.refused] == ["malformed"]
    with pytest.raises(ImportRefused):
        import_files([files["good"]], format="nope")


def test_convert_writes_every_paper_read(files: dict[str, Path]) -> None:
    text, batch = convert_files([files["good"], files["nbib"], files["empty"]], to="csv")
    assert text.splitlines()[0].startswith("id,title,")
    assert len(text.strip().splitlines()) == 3
    assert [r.code for r in batch.refused] == ["empty"]
    ris, _ = convert_files([files["nbib"]], to="RIS")
    assert "AN  - 42" in ris
    with pytest.raises(ImportRefused):
        convert_files([files["good"]], to="docx")
