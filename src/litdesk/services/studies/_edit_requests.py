"""The requests of a Study's edit, delete and trash use cases, validated once here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from litdesk.core.evidence import MAX_COMMENT_CHARS

from ._requests import StudiesInputError

__all__ = ["MAX_REF", "EditInputError", "EmptyTrashRequest", "NoteEditRequest"]

MAX_REF: Final = 200


class EditInputError(StudiesInputError):
    """An edit or a deletion does not fit (an empty comment, an unconfirmed emptying)."""

    default_code = "edit_input"


def _ref(value: str, what: str) -> str:
    value = value.strip()
    if not value or len(value) > MAX_REF:
        raise EditInputError(f"{what} is 1 to {MAX_REF} characters", code="bad_ref")
    return value


@dataclass(frozen=True, slots=True)
class NoteEditRequest:
    """A note's (a comment's or a highlight's) new comment; a highlight's may be blank
    (the highlight stays), a paper-level comment's may not (delete it instead)."""

    note_id: str
    comment: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "note_id", _ref(self.note_id, "a note id"))
        comment = self.comment.strip()
        if len(comment) > MAX_COMMENT_CHARS:
            raise EditInputError(
                f"a comment is at most {MAX_COMMENT_CHARS:,} characters", code="comment"
            )
        object.__setattr__(self, "comment", comment)


@dataclass(frozen=True, slots=True)
class EmptyTrashRequest:
    """Empty a Study's trash (``study``), or with ``study`` None the acting account's own
    trash (work of no Study, deleted Studies): only when ``confirm`` says so
    (:meth:`confirmed`)."""

    study: str | None
    confirm: bool = False

    def __post_init__(self) -> None:
        if self.study is not None:
            object.__setattr__(self, "study", _ref(self.study, "a Study"))

    def confirmed(self) -> None:
        """Refuse an unconfirmed emptying (checked after the account's right to empty:
        one who may not is told so first)."""
        if not self.confirm:
            raise EditInputError(
                "emptying the trash deletes its items for good: confirm it", code="confirm"
            )
