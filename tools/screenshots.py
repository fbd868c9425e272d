"""The README's quick-start images: ``python tools/screenshots.py [OUT_DIR]`` (run by hand
after a change to the pages; needs the dev tools: Playwright and Debian's chromium, ``make
browser``).

Builds a fresh demo workspace in a temporary folder (never your own workspace, nor the demo
workspace of ``litdesk demo path``), serves it on a free loopback port, walks the quick start
as the browser test does (``tests/faces/web/_quickstart.py``: the README's ten steps) at
1280 px, light, and writes ``quickstart-01-run.png`` … ``quickstart-10-export.png`` into
OUT_DIR (default ``docs/img``): the viewport, not the full page, reduced to 256 colours so
that each stays well under 200 KB. Prints each file with its size.
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]  # this checkout's litdesk and its test walk

import uvicorn  # noqa: E402
from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from tests.faces.web._quickstart import STEPS, walk_quickstart  # noqa: E402

from litdesk import Settings  # noqa: E402
from litdesk.faces.web import create_app  # noqa: E402
from litdesk.services.demo import build_demo  # noqa: E402

WIDTH, HEIGHT = 1280, 900
#: what each image may weigh at most (the README's budget)
MAX_BYTES = 200_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _served(app: Any, port: int) -> Iterator[None]:
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the demo workspace's server did not start")
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def _small_png(png: bytes) -> bytes:
    """The screenshot in 256 colours (text and flat colours lose nothing a reader sees)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    reduced = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    reduced.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    chromium = os.environ.get("LITDESK_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        print("chromium is not installed (make browser)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="litdesk-shots-") as tmp:
        real = Settings(data_dir=Path(tmp) / "not-used")
        made = build_demo(Path(tmp) / "demo", real)
        settings = real.for_demo(made.place.directory).model_copy(update={"jobs_worker_slots": 2})
        port = _free_port()
        app = create_app(settings, host="127.0.0.1", port=port)
        written: list[Path] = []
        with _served(app, port), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            context = browser.new_context(
                viewport={"width": WIDTH, "height": HEIGHT},
                color_scheme="light",
                accept_downloads=True,
            )
            page = context.new_page()

            def shot(step: str) -> None:
                target = out / f"quickstart-{step}.png"
                target.write_bytes(_small_png(page.screenshot()))
                written.append(target)

            walk_quickstart(page, f"http://127.0.0.1:{port}", made.place.export, shot)
            browser.close()
    too_big = False
    for path in written:
        size = path.stat().st_size
        too_big |= size > MAX_BYTES
        print(f"{path}  {size / 1000:.0f} KB{'  (over 200 KB)' if size > MAX_BYTES else ''}")
    if [p.name for p in written] != [f"quickstart-{s}.png" for s in STEPS]:
        print("the walk did not take every step", file=sys.stderr)
        return 1
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img"))
