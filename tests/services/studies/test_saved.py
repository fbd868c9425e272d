"""The studies area's saved list reuses validated records only while their stored text
is unchanged: a change within the same second is seen, a status change is seen."""

from __future__ import annotations

import asyncio
from typing import Any

from litdesk.core.records import make_paper
from litdesk.services.app import open_app
from litdesk.services.studies import SavedRequest


def test_saved_list_sees_every_change(tmp_settings) -> None:
    async def go() -> None:
        async with open_app(tmp_settings) as app:
            ws = app.workspace()

            def saved(**kw: Any) -> dict[str, Any]:
                return app.studies.saved(SavedRequest(**kw), owner=app.owner).to_dict()

            ws.save_paper(make_paper(pmid="11", title="First title"))
            ws.save_paper(make_paper(pmid="12", title="Second"))
            first = saved()
            assert sorted(p["title"] for p in first["papers"]) == ["First title", "Second"]
            # same second, new data (a merge fills the journal): re-read, not reused
            ws.save_paper(make_paper(pmid="11", title="First title", journal="New Journal"))
            ws.set_status("MED-11", "read")
            again = saved()
            by_id = {p["id"]: p for p in again["papers"]}
            assert (
                by_id["MED-11"]["journal"] == "New Journal" and by_id["MED-11"]["status"] == "read"
            )
            assert saved(status="read")["matched"] == 1
            assert saved(text="new journal")["matched"] == 1

    asyncio.run(go())
