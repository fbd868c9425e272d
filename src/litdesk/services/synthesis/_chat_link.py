"""The paper chat as the reports area's :class:`ChatLink` (what the App hands in): the
chat service of today, bound per owner as its routes bind it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from litdesk.services.library import ChatService

from ._area import ChatAnswer
from ._views import ChatDraft

__all__ = ["ChatServiceLink"]


class ChatServiceLink:
    """:class:`ChatLink` over a :class:`ChatService`."""

    def __init__(self, chat: ChatService) -> None:
        self.chat = chat

    def session_id(self, token: str, *, owner: str) -> str:
        return self.chat.for_owner(owner).session_id(token)

    def draft(self, token: str, *, owner: str) -> ChatDraft:
        session = self.chat.for_owner(owner).session(token)
        return ChatDraft(
            session.papers, session.whole_library, tuple(session.questions), bool(session.rounds)
        )

    def answers(
        self, session_id: str, papers: Sequence[str], *, whole_library: bool
    ) -> Mapping[str, ChatAnswer]:
        found = self.chat.answers_for(session_id, list(papers), whole_library=whole_library)
        return cast(Mapping[str, ChatAnswer], found)
