"""Templates (Jinja2, autoescape always on) and the page/JSON response helpers."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from litdesk.core.providers import display_name
from litdesk.core.words import file_name
from litdesk.faces import _words
from litdesk.services.subjects import vocabulary_name

from ._deps import is_demo

__all__ = ["STATIC_DIR", "TEMPLATE_DIR", "page"]

TEMPLATE_DIR: Final = Path(__file__).parent / "templates"
STATIC_DIR: Final = Path(__file__).parent / "static"


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
    )
    # {{ import_label(i.source, i.records, i.created_at) }}, {{ run_label(q, executed_at) }}
    env.globals.update(import_label=_words.import_label, run_label=_words.run_label)
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
