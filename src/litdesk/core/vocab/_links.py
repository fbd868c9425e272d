"""Links from evidence to subjects (pure): a subject's reference as typed (``mesh:D003920``
or a bare MeSH id), the subject a link keeps (vocabulary, id, label) and its limits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError

__all__ = [
    "MAX_LINKED_SUBJECTS",
    "SUBJECT_ID",
    "SUBJECT_LABEL_CHARS",
    "VOCABULARY_NAME",
    "SubjectLinkInvalid",
    "SubjectRef",
    "distinct_links",
    "parse_subject_ref",
    "parse_subject_refs",
]

#: Most subjects one evidence record links to; longest label a link keeps.
MAX_LINKED_SUBJECTS: Final = 8
SUBJECT_LABEL_CHARS: Final = 300
#: A vocabulary's name in litdesk (``mesh``) and a subject's id there (``D003920``).
VOCABULARY_NAME: Final = r"[a-z][a-z0-9_]{0,39}"
SUBJECT_ID: Final = r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}"
_REF: Final = re.compile(rf"(?:({VOCABULARY_NAME}):)?({SUBJECT_ID})")
#: the vocabulary a bare id is read in
_DEFAULT_VOCABULARY: Final = "mesh"


class SubjectLinkInvalid(InputError):
    """A subject reference does not fit (shape, count)."""

    default_code = "subject"


@dataclass(frozen=True, slots=True)
class SubjectRef:
    """A subject as an evidence record links to it: vocabulary, id and the label it had
    when linked (kept, so the link reads the same if the vocabulary changes)."""

    vocabulary: str
    id: str
    label: str

    @property
    def key(self) -> str:
        """``vocabulary:id`` (how the table filter and the CLI name it)."""
        return f"{self.vocabulary}:{self.id}"

    def to_dict(self) -> dict[str, Any]:
        return {"vocabulary": self.vocabulary, "id": self.id, "label": self.label, "key": self.key}

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> SubjectRef:
        vocabulary, ident, label = data.get("vocabulary"), data.get("id"), data.get("label")
        if not isinstance(vocabulary, str) or not isinstance(ident, str):
            raise SubjectLinkInvalid("a subject needs its vocabulary and id")
        parsed = parse_subject_ref(f"{vocabulary}:{ident}")
        if not isinstance(label, str) or not label.strip() or len(label) > SUBJECT_LABEL_CHARS:
            raise SubjectLinkInvalid(
                f"a subject's label is 1 to {SUBJECT_LABEL_CHARS} characters", code="label"
            )
        return cls(parsed[0], parsed[1], label.strip())


def parse_subject_ref(text: str) -> tuple[str, str]:
    """``(vocabulary, id)`` of ``mesh:D003920`` (a bare id is a MeSH id); refuses others."""
    match = _REF.fullmatch(text.strip())
    if match is None:
        raise SubjectLinkInvalid(
            f"{text.strip()[:80]!r} is not a subject: give its vocabulary and id, "
            "as in mesh:D003920",
            code="subject_ref",
        )
    return match.group(1) or _DEFAULT_VOCABULARY, match.group(2)


def distinct_links(subjects: Iterable[SubjectRef]) -> tuple[SubjectRef, ...]:
    """Each subject once (by vocabulary and id), in order; at most
    :data:`MAX_LINKED_SUBJECTS`."""
    out = tuple({(s.vocabulary, s.id): s for s in subjects}.values())
    if len(out) > MAX_LINKED_SUBJECTS:
        raise SubjectLinkInvalid(
            f"link at most {MAX_LINKED_SUBJECTS} subjects to one record", code="too_many"
        )
    return out


def parse_subject_refs(texts: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """Each reference once, in order; at most :data:`MAX_LINKED_SUBJECTS`."""
    out = tuple(dict.fromkeys(parse_subject_ref(t) for t in texts if t.strip()))
    if len(out) > MAX_LINKED_SUBJECTS:
        raise SubjectLinkInvalid(
            f"link at most {MAX_LINKED_SUBJECTS} subjects to one record", code="too_many"
        )
    return out
