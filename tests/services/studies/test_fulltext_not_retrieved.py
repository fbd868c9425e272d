"""The full-text page names the papers recorded not retrieved while screening full texts
(walk12: they were listed as "no full text yet", like the papers nobody had looked for,
while the PRISMA flow counted them under "Reports not retrieved"); the web page, its JSON
and ``litdesk study fulltext`` say so."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from litdesk import Settings
from litdesk.core.records import Paper
from litdesk.services.app import App, open_app
from litdesk.services.screening import DecideRequest, RetrievalRequest
from litdesk.services.studies import CreateStudyRequest

PAPERS = (
    Paper(id="MED-1", pmid="1", title="Sought and not retrieved", year=2010),
    Paper(id="MED-2", pmid="2", title="Sought, nothing recorded", year=2011),
    Paper(id="MED-3", pmid="3", title="Excluded at title and abstract", year=2012),
)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def _study(app: App) -> str:
    study = app.studies.create_study(CreateStudyRequest("Retrieval"), owner=app.owner).id
    app.workspace(app.owner).save_papers(PAPERS, study=study)
    for key, verdict in (("MED-1", "include"), ("MED-2", "maybe"), ("MED-3", "exclude")):
        app.screening.decide(DecideRequest(study, "title_abstract", key, verdict), owner=app.owner)
    app.screening.retrieval(RetrievalRequest(study, "MED-1", False, "no access"), owner=app.owner)
    return study


def test_the_sought_list_names_the_papers_recorded_not_retrieved(settings: Settings) -> None:
    async def go() -> dict[str, Any]:
        async with open_app(settings) as app:
            return await asyncio.to_thread(
                lambda: app.studies.fulltext(_study(app), owner=app.owner, show="sought").to_dict()
            )

    view = asyncio.run(go())
    assert {r["id"] for r in view["papers"]} == {"MED-1", "MED-2"}
    assert view["not_retrieved"] == ["MED-1"]
