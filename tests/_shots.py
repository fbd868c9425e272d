"""Screenshots of browser tests for the record: a person looks at them, no test reads them.

They are taken only when ``$SHOTS_DIR`` (or ``$LITDESK_ARTIFACTS``, the every-page test's
folder) names a folder: a full-page screenshot costs chromium about 0.15 s of CPU, and
without a folder to keep them in they went to the test's tmp dir, where nobody saw them.
The variables are read at import (``tmp_settings`` clears ``LITDESK_*`` during a test)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["SHOTS", "shoot"]

#: where screenshots go ("" when none are taken)
SHOTS = os.environ.get("SHOTS_DIR") or os.environ.get("LITDESK_ARTIFACTS") or ""


def shoot(target: Any, name: str, **options: Any) -> None:
    """A screenshot of ``target`` (a Playwright page or locator) as ``name`` in
    :data:`SHOTS`, with Playwright's ``options`` (``full_page=True``...); none without it."""
    if not SHOTS:
        return
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(folder / name), **options)
