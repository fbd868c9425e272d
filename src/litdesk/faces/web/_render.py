"""Templates (Jinja2, autoescape always on), the page response helper and the static files.

Static files are linked by a fingerprinted URL, ``/static/<hash>/app.css``
(``{{ asset("app.css") }}`` in a template): ``<hash>`` is of the whole ``static`` folder's
content, so one changed file gives every file a new URL, and the scripts' relative
imports (``./dom.js``) stay under the same fingerprint. Those URLs are answered
``immutable`` (see ``_security``): a browser loads each file once and then takes it from
its cache on every page, without asking the server again. The plain ``/static/app.css``
still answers (``no-cache``), and so does an older fingerprint (a page rendered by a
server before an upgrade): with the current file, ``no-cache``."""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.types import Scope

from litdesk.core.providers import display_name
from litdesk.core.words import file_name
from litdesk.faces import _words
from litdesk.services.subjects import vocabulary_name

from ._deps import is_demo

__all__ = ["STATIC_DIR", "TEMPLATE_DIR", "StaticAssets", "asset", "asset_prefix", "page"]

TEMPLATE_DIR: Final = Path(__file__).parent / "templates"
STATIC_DIR: Final = Path(__file__).parent / "static"

#: a fingerprint's shape: the first path segment under /static/ that is one is dropped
_FINGERPRINT: Final = re.compile(r"[0-9a-f]{16}")


@lru_cache(maxsize=1)  # the files of the package: read once per process
def asset_prefix() -> str:
    """``/static/<hash>``: the URL prefix of the static files as this process has them."""
    digest = hashlib.sha256()
    for file in sorted(p for p in STATIC_DIR.rglob("*") if p.is_file()):
        digest.update(file.relative_to(STATIC_DIR).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return f"/static/{digest.hexdigest()[:16]}"


@lru_cache(maxsize=256)  # a page links ~27 files: checked once per process, not per render
def asset(name: str) -> str:
    """The fingerprinted URL of the static file ``name`` (``"js/app.js"``); a name that is
    not a file of the folder fails the page (a typo in a template is found by any test)."""
    if not (STATIC_DIR / name).is_file():
        raise FileNotFoundError(f"no static file {name!r}")
    return f"{asset_prefix()}/{name}"


class StaticAssets(StaticFiles):
    """The ``static`` folder, under ``/static/`` and under any fingerprint below it."""

    def __init__(self) -> None:
        super().__init__(directory=STATIC_DIR)

    def get_path(self, scope: Scope) -> str:
        path = super().get_path(scope)
        first, sep, rest = path.partition(os.sep)
        return rest if sep and _FINGERPRINT.fullmatch(first) else path


@lru_cache(maxsize=1)  # the one template environment of the process (files of the package)
def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATE_DIR),
        autoescape=True,  # every template, whatever its name: provider text is never HTML
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # words for people (litdesk.faces._words): {{ run.created|when }}, {{ n|num }},
    # {{ n|plural("saved search", "saved searches") }}, {{ lane|lane_label }}, {{ d|day }}
    env.filters.update(
        when=_words.when,
        day=_words.day,
        # {{ (rows | map(attribute="date") | list | dates)[i] }}: a report's dates, the time
        # only where two moments share a day (never "3 minutes ago" in a report)
        dates=_words.dates,
        num=_words.num,
        plural=_words.plural,
        lane_label=_words.lane_label,
        provider_name=display_name,  # {{ p|provider_name }}: "Europe PMC", "Demo sample (offline)"
        basename=file_name,  # {{ "/data/exports/psycinfo.ris"|basename }} → psycinfo.ris
        vocabulary_name=vocabulary_name,  # {{ "mesh"|vocabulary_name }} → MeSH
        # {{ p.authors|authors(6) }}: "Aurelio Vega, Miguel Angel Martin-Ferrero and 4 more"
        authors=_words.authors_line,
    )
    # {{ import_label(i.source, i.records, i.created_at) }}, {{ run_label(q, executed_at) }}
    env.globals.update(import_label=_words.import_label, run_label=_words.run_label)
    env.globals.update(asset=asset)  # {{ asset("app.css") }}: its fingerprinted URL
    return env


def page(
    request: Request, template: str, data: dict[str, Any], *, status: int = 200, title: str = ""
) -> HTMLResponse:
    """Render ``template`` with the view ``data`` (the same dict the API returns)."""
    state = request.scope.get("state", {})
    html = (
        _env()
        .get_template(template)
        .render(
            data=data,
            title=title,
            csrf_token=state.get("csrf_token", ""),
            path=request.url.path,
            account=state.get("account"),  # team mode: the signed-in account
            # the header's live counts: for the local workspace or a signed-in account (a
            # signed-out page in team mode asks for none; it would only be refused)
            counts="account" not in state or state["account"] is not None,
            demo=is_demo(request),  # the demo workspace's banner
        )
    )
    return HTMLResponse(html, status_code=status)
