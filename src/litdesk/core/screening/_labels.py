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
"""

from __future__ import annotations

import re
from typing import Final, Literal

__all__ = ["LABEL_WORDS", "Label", "parse_label"]

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
