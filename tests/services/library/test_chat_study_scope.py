"""Issue 32: a chat scoped to a Study asks the PDFs attached to its papers (matched by DOI),
names the Study, and its chats are listed per Study."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from litdesk._settings import Settings
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync
from litdesk.services.library import ChatQuestionRequest
from litdesk.services.library._area import StudyNotLinked
from litdesk.services.workspace import Workspace


def test_a_studys_pdfs_are_the_chats_scope(
    tmp_settings: Settings, tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]
) -> None:
    folder = tmp_path / "pdfs"
    make_pdf(
        folder / "rivers.pdf",
        ["doi:10.5555/rivers.2021 " + "Cameras on bridges measured the water level. " * 10],
    )
    make_pdf(
        folder / "wheat.pdf", ["doi:10.5555/wheat.2020 " + "Heat stress cut the wheat yield. " * 10]
    )
    make_pdf(folder / "loose.pdf", ["Cameras also watched the water level of a lake. " * 10])
    settings = tmp_settings.model_copy(
        update={"library_dirs": [folder], "llm_backend": "none", "embedder": "wordllama"}
    )
    with open_app_sync(settings) as app:
        app.pdfs.index()  # the DOIs printed on the first pages are read while indexing
        ws = Workspace(app.store)
        study = ws.create_study("Rivers")
        empty = ws.create_study("Nothing here")
        paper = ws.save_paper(make_paper(doi="10.5555/rivers.2021", title="Rivers")).paper
        ws.add_to_study(study.id, paper.id)
        name, names = app.library.study_pdfs(study.id, owner=LOCAL_OWNER)
        assert name == "Rivers" and names == ("rivers.pdf",)
        with pytest.raises(StudyNotLinked):
            app.library.study_pdfs(empty.id, owner=LOCAL_OWNER)
        token = secrets.token_urlsafe(32)
        view = app.library.chat_scope_study(token, study.id, owner=LOCAL_OWNER)
        assert view.study == {"id": study.id, "name": "Rivers"}
        assert view.papers == ("rivers.pdf",) and not view.whole_library
        card = app.library.chats.ask(
            ChatQuestionRequest(token, "How was the water level measured?"), owner=LOCAL_OWNER
        )
        cited = {c["file"] for c in card.data["citations"]}
        assert cited == {"rivers.pdf"}  # not the loose PDF on the same topic
        [item] = app.library.chat_list(owner=LOCAL_OWNER, study_id=study.id)
        assert item.study_id == study.id and item.title == "How was the water level measured?"
        assert app.library.chat_list(owner=LOCAL_OWNER, study_id=empty.id) == []
