"""One team server process whose providers are loopback servers, for the live-search tests
across processes: the app ``litdesk serve --team`` runs in each worker, with the transport's
loopback ``base_urls`` hook instead of a cassette (a replayed lane cannot be slow).

    python -c "from tests.faces.web._live_worker import main; main()" PORT '{"openalex": URL}'

The store, data directory and keys come from the environment (``LITDESK_*``) as for
``litdesk serve``."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from litdesk._settings import get_settings
from litdesk.faces.web import create_app
from litdesk.services.app import open_app


def main() -> None:
    port = int(sys.argv[1])
    bases: dict[str, str] = json.loads(sys.argv[2])
    settings = get_settings()
    app = create_app(settings, host="127.0.0.1", port=port, team=True)

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[None]:
        async with open_app(settings, base_urls=bases) as opened:
            app_.state.app = opened  # no job runners: the searches only
            yield

    app.router.lifespan_context = lifespan
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
