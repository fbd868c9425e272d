"""The app builds each part on first use (issue 26): a command imports and builds only the
areas it reaches, closing closes only what was built, and threads racing to a first
build get one part. The packages answer their names from the defining module."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import litdesk
from litdesk._exports import exported_names
from litdesk._settings import Settings
from litdesk.services.app import open_app_sync

SRC = Path(litdesk.__file__).parent

#: Modules listing the Studies must not import (other areas, heavy libraries).
NOT_FOR_A_LISTING = (
    "litdesk.services.assist",
    "litdesk.services.reader",
    "litdesk.services.library",
    "litdesk.services.accounts",
    "litdesk.services.screening",
    "litdesk.services.zotero",
    "litdesk.services.providers",
    "litdesk.adapters.http",
    "litdesk.core.dedup",
    "numpy",
    "jinja2",
    "joserfc",
    "pypdfium2",
)

_LISTING = """
import json, sys
from litdesk._settings import Settings
from litdesk.services.app import open_app_sync
with open_app_sync(Settings(data_dir=sys.argv[1])) as app:
    rows = app.studies.studies(owner=app.owner).studies
    built = sorted(n for n in ("transport", "providers", "pdfs", "models", "jobs", "accounts",
                               "studies", "runners") if app.built(n))
print(json.dumps({"rows": len(rows), "built": built,
                  "loaded": sorted(m for m in sys.modules if m.startswith(tuple(sys.argv[2:])))}))
"""


def test_listing_studies_imports_and_builds_only_what_it_uses(tmp_settings: Settings) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env["PYTHONPATH"] = str(SRC.parent)
    done = subprocess.run(
        [sys.executable, "-c", _LISTING, str(tmp_settings.resolved_data_dir()), *NOT_FOR_A_LISTING],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["rows"] == 0
    assert out["built"] == ["jobs", "studies"]  # no transport, providers, library, runners
    assert out["loaded"] == []


def test_close_closes_only_what_was_built(tmp_settings: Settings) -> None:
    with open_app_sync(tmp_settings) as app:
        assert not app.built("pdfs") and not app.built("transport")
    assert not app.built("pdfs")  # closing built nothing
    with open_app_sync(tmp_settings) as app:
        pdfs = app.pdfs
        closed: list[str] = []
        original = pdfs.close

        def close() -> None:
            closed.append("pdfs")
            original()

        pdfs.close = close  # type: ignore[method-assign]
    assert closed == ["pdfs"]


def test_threads_racing_to_a_first_build_get_one_part(tmp_settings: Settings) -> None:
    with open_app_sync(tmp_settings) as app:
        start = threading.Barrier(8)
        seen: list[object] = []

        def reach() -> None:
            start.wait()
            seen.append(app.dedup)

        threads = [threading.Thread(target=reach) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(seen) == 8 and all(area is seen[0] for area in seen)
        assert app.dedup is seen[0]


def _lazy_packages() -> list[str]:
    found = []
    for init in sorted(SRC.rglob("__init__.py")):
        if "lazy_exports(__name__, __file__, globals())" in init.read_text(encoding="utf-8"):
            parts = init.parent.relative_to(SRC.parent).parts
            found.append(".".join(parts))
    return found


def test_some_packages_are_lazy() -> None:
    assert {"litdesk.services.dedup", "litdesk.core.runs"} <= set(_lazy_packages())


@pytest.mark.parametrize("name", _lazy_packages())
def test_a_lazy_package_answers_every_name_it_lists(name: str) -> None:
    package = importlib.import_module(name)
    listed = set(package.__all__)
    assert listed <= set(exported_names(package.__file__ or ""))
    for exported in listed:
        getattr(package, exported)  # imported from its module (an AttributeError if not)
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018
