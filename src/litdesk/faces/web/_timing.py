"""``Server-Timing: app;dur=<ms>`` on every response: the time the app spent on the request
(measured from the first byte in to the response start), for benchmarks and the browser's
network panel."""

from __future__ import annotations

import time
from typing import Any

__all__ = ["ServerTiming"]


class ServerTiming:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed(message: Any) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - start) * 1000
                message["headers"] = [
                    *message.get("headers", []),
                    (b"server-timing", f"app;dur={ms:.2f}".encode()),
                ]
            await send(message)

        await self.app(scope, receive, timed)
