"""The paper chat as the reports area's :class:`ChatLink` (what the App hands in): the
library area's chat service, every call for an owner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from litdesk.services.library import (
    ChatJob,
    ChatRoundsRequest,
    ChatScopeRequest,
    ChatService,
)
from litdesk.services.workspace import Workspace

from ._area import ChatAnswer
from ._views import ChatDraft

__all__ = ["ChatServiceLink"]


class ChatServiceLink:
    """:class:`ChatLink` over a :class:`ChatService`."""

    def __init__(self, chat: ChatService) -> None:
        self.chat = chat

    def session_id(self, token: str, *, owner: str) -> str:
        return self.chat.session_id(token, owner=owner)

    def draft(self, token: str, *, owner: str) -> ChatDraft:
        session = self.chat.session(token, owner=owner)
        return ChatDraft(
            session.papers, session.whole_library, tuple(session.questions), bool(session.rounds)
        )

    def answers(
        self, session_id: str, papers: Sequence[str], *, whole_library: bool
    ) -> Mapping[str, ChatAnswer]:
        found = self.chat.answers_for(session_id, list(papers), whole_library=whole_library)
        return cast(Mapping[str, ChatAnswer], found)

    def ask_rounds(
        self,
        token: str,
        questions: Sequence[str],
        papers: Sequence[str],
        *,
        whole_library: bool,
        owner: str,
        study: str | None = None,
    ) -> ChatJob:
        scope = ChatScopeRequest(token, tuple(papers), whole_library)
        request = ChatRoundsRequest(scope, tuple(questions))
        tag = None
        if study is not None:  # the chat names the Study and lists the chat under it
            row = Workspace(self.chat.library.store, owner=owner).study(study)
            tag = {"id": row.id, "name": row.name}
        return self.chat.submit_rounds(request, owner=owner, study=tag)
