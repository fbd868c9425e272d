"""The bundled demo files (``litdesk/_demo/data``), read from the installed package."""

from __future__ import annotations

import functools
import gzip
import json
import lzma
import shutil
from importlib import resources
from pathlib import Path
from typing import Any, Final

from litdesk._errors import IntegrityError
from litdesk.core.demo import SampleIndex, SampleRecord

__all__ = [
    "DEMO_EXPORT",
    "copy_data_file",
    "data_file",
    "sample_index",
    "sample_records",
    "study_plan",
]

#: the small export a newcomer imports (also copied into the demo workspace's files/)
DEMO_EXPORT: Final = "demo-export.ris"
_PACKAGE: Final = "litdesk._demo"


def data_file(name: str) -> bytes:
    """The bytes of bundled file ``name`` (as shipped: a ``.gz`` file stays packed)."""
    return _data(name)


def _data(name: str) -> bytes:
    try:
        return (resources.files(_PACKAGE) / "data" / name).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        raise IntegrityError(
            f"the demo file {name} is missing from this installation of litdesk",
            code="demo_files",
        ) from None


@functools.cache
def sample_records() -> tuple[SampleRecord, ...]:
    """Every record of the demo sample (read once per process)."""
    text = lzma.decompress(_data("sample.jsonl.xz")).decode("utf-8")
    return tuple(SampleRecord.from_dict(json.loads(line)) for line in text.splitlines() if line)


@functools.cache
def sample_index() -> SampleIndex:
    """The demo sample's index (built once per process, on first use: about 2 s)."""
    return SampleIndex(sample_records())


def study_plan() -> dict[str, Any]:
    """The demo Study's plan (``study.json``; see PROVENANCE.md)."""
    plan = json.loads(_data("study.json").decode("utf-8"))
    if not isinstance(plan, dict):
        raise IntegrityError("the demo Study's plan is not an object", code="demo_files")
    return plan


def copy_data_file(name: str, dest: Path) -> Path:
    """Write bundled file ``name`` to ``dest`` (a ``.gz`` file unpacked)."""
    body = _data(name)
    if name.endswith(".gz"):
        body = gzip.decompress(body)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    tmp.write_bytes(body)
    shutil.move(tmp, dest)
    return dest
