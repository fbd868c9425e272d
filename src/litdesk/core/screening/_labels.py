"""The label of a record in a labelled file (``litdesk screen simulate``): the encodings people
actually have, read case- and space-insensitively.

* included: ``1``, ``1.0`` (pandas writes integer columns with a missing value as floats),
  ``true``, ``yes``, ``y``, ``included``, ``include``, ``relevant``, ``ASReview_relevant``
  (ASReview's RIS note);
* excluded: ``0``, ``0.0``, ``false``, ``no``, ``n``, ``excluded``, ``exclude``,
  ``irrelevant``, ``ASReview_irrelevant``;
* unlabelled: an empty cell, ``-1`` (ASReview's "not labelled" code), ``nan``, ``na``,
  ``n/a``, ``none``, ``null``, ``ASReview_not_seen``.

Anything else (``maybe``, ``2``, a typo) is not a label: the caller names the record.

A RIS record's notes carry ASReview's label as ASReview itself reads it
(:func:`asreview_note_label`): the first note that holds ``ASReview_relevant``,
``ASReview_irrelevant`` or ``ASReview_not_seen`` anywhere in its text ("Additional notes 1.
ASReview_relevant." is relevant), as a note edited by hand or passed through a reference
manager has it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, Literal

__all__ = ["ASREVIEW_NOTE_LABELS", "LABEL_WORDS", "Label", "asreview_note_label", "parse_label"]

#: a label read from a cell: True (included), False (excluded), None (unlabelled)
Label = bool | None

#: word -> label (keys casefolded, spaces removed)
LABEL_WORDS: Final[dict[str, Label]] = {
    **dict.fromkeys(
        ("1", "true", "yes", "y", "included", "include", "relevant", "asreview_relevant"), True
    ),
    **dict.fromkeys(
        ("0", "false", "no", "n", "excluded", "exclude", "irrelevant", "asreview_irrelevant"),
        False,
    ),
    **dict.fromkeys(
        ("", "-1", "nan", "na", "n/a", "none", "null", "asreview_not_seen"),
        None,
    ),
}

#: Zotero wraps RIS notes in ``<p>…</p>``
_P_TAGS: Final = re.compile(r"^<p>|</p>$")
#: ``1.0``, ``0.00``, ``-1.0``, ``+1``: a number a spreadsheet or pandas wrote
_NUMBER: Final = re.compile(r"^[+-]?\d+(?:\.0*)?$")


#: ASReview's label notes (casefolded), in the order ASReview tries them within a note
#: (``asreview.data.ris.RIS_NOTE_LABEL_MAPPING``)
ASREVIEW_NOTE_LABELS: Final[tuple[tuple[str, Label], ...]] = (
    ("asreview_relevant", True),
    ("asreview_irrelevant", False),
    ("asreview_not_seen", None),
)


def asreview_note_label(notes: Iterable[str]) -> Label | Literal["absent"]:
    """ASReview's label in a RIS record's notes: the first note holding one of its label
    words anywhere (case ignored) decides, as ASReview's RIS reader does; ``"absent"`` when
    no note holds one."""
    for note in notes:
        low = note.casefold()
        if "asreview_" not in low:
            continue
        for word, label in ASREVIEW_NOTE_LABELS:
            if word in low:
                return label
    return "absent"


def parse_label(value: str) -> Label | Literal["unknown"]:
    """``True``/``False``/``None`` (unlabelled) for a label cell, ``"unknown"`` when the
    value is none of the accepted encodings (see the module's list)."""
    word = "".join(_P_TAGS.sub("", value.strip()).split()).casefold()
    if word in LABEL_WORDS:
        return LABEL_WORDS[word]
    if _NUMBER.match(word):
        number = int(word.split(".", 1)[0])
        if number in (0, 1):
            return number == 1
        if number == -1:
            return None
    return "unknown"
