"""Issue 32: the paper chat's history per account, kept in the store: listed, reopenable
and deletable from any browser (another token), after a restart (a new app on the same data
dir), never another account's."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.services.app import app_library
from litdesk.services.library import (
    ChatNotFound,
    ChatQuestionRequest,
    ChatScopeRequest,
    ChatService,
    RoundNotFound,
)


@pytest.fixture
def settings(
    tmp_settings: Settings, tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path],
    library_db: str | None,
) -> Settings:  # fmt: skip
    folder = tmp_path / "pdfs"
    make_pdf(
        folder / "a.pdf", ["Water level cameras on bridges took an image every ten minutes. " * 12]
    )
    make_pdf(folder / "b.pdf", ["Heat stress in wheat reduced yield by a third. " * 12])
    return tmp_settings.model_copy(update={"library_dirs": [folder], "database_url": library_db})


def test_history_is_per_account_and_survives_a_restart(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    ana, bob = ("acc-ana", "acc-bob") if settings.database_url else (LOCAL_OWNER, "acc-bob")
    first = ChatService(app_library(settings, embedder=wordllama))
    token = secrets.token_urlsafe(32)
    assert first.history(owner=ana) == []
    first.set_scope(ChatScopeRequest(token, ("a.pdf",), False), owner=ana)
    assert first.history(owner=ana) == []  # a scope alone is no chat
    q1, q2 = "How often did the cameras take an image?", "Where were the cameras mounted?"
    first.ask(ChatQuestionRequest(token, q1), owner=ana)
    first.ask(ChatQuestionRequest(token, q2), owner=ana)
    # a restarted server (a new app on the same data dir), a new browser (another token)
    again = ChatService(app_library(settings, embedder=wordllama))
    assert again.session(secrets.token_urlsafe(32), owner=ana).rounds == ()
    [item] = again.history(owner=ana)
    assert item.title == q1 and item.rounds == 2 and item.updated_at >= item.created_at
    past = again.past(item.id, owner=ana)
    assert [r.number for r in past.rounds] == [1, 2] and past.papers == ("a.pdf",)
    assert [r.data["question"] for r in past.rounds] == [q1, q2]
    assert again.past_round(item.id, 2, owner=ana).data["question"] == q2
    with pytest.raises(RoundNotFound):
        again.past_round(item.id, 3, owner=ana)
    # another account sees nothing of it, and cannot open or delete it
    assert again.history(owner=bob) == []
    with pytest.raises(ChatNotFound):
        again.past(item.id, owner=bob)
    with pytest.raises(ChatNotFound):
        again.past_round(item.id, 1, owner=bob)
    with pytest.raises(ChatNotFound):
        again.forget(item.id, owner=bob)
    assert again.history(owner=ana) != []
    # a second chat is listed first; deleting the first leaves the second
    other = secrets.token_urlsafe(32)
    again.ask(ChatQuestionRequest(other, "What reduced the yield of wheat?"), owner=ana)
    listed = again.history(owner=ana)
    assert [c.title for c in listed] == ["What reduced the yield of wheat?", q1]
    again.forget(item.id, owner=ana)
    assert [c.id for c in again.history(owner=ana)] == [listed[0].id]
    with pytest.raises(ChatNotFound):
        again.past(item.id, owner=ana)
    assert again.session(token, owner=ana).rounds == ()  # its rounds are gone too
