"""Which language a text is in, by its function words (pure, no model).

Enough to tell the languages the PDF library meets most (English, Spanish, Portuguese,
French, German, Italian) apart in a question or an excerpt, so retrieval knows when the
lexical ranking cannot see an excerpt (a question in English, a passage in Spanish) and
leans on the cross-lingual embedding there instead. ``None`` when the text is too short
or no language stands out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["LANGUAGES", "guess_language", "majority_language"]

#: Function words that are frequent in one language and rare in the others.
_WORDS: Final[dict[str, frozenset[str]]] = {
    "en": frozenset(
        [
            "the",
            "and",
            "of",
            "to",
            "in",
            "is",
            "that",
            "for",
            "with",
            "was",
            "were",
            "are",
            "this",
            "by",
            "from",
            "which",
            "have",
            "has",
            "be",
            "been",
            "their",
            "these",
            "not",
            "on",
            "an",
            "it",
            "as",
            "at",
            "or",
        ]
    ),
    "es": frozenset(
        [
            "el",
            "los",
            "las",
            "del",
            "y",
            "en",
            "que",
            "por",
            "con",
            "para",
            "una",
            "se",
            "es",
            "al",
            "como",
            "más",
            "pero",
            "sus",
            "este",
            "esta",
            "han",
            "ha",
            "entre",
            "sobre",
            "también",
            "fue",
            "son",
            "lo",
        ]
    ),
    "pt": frozenset(
        [
            "o",
            "os",
            "as",
            "do",
            "da",
            "dos",
            "das",
            "e",
            "em",
            "que",
            "por",
            "com",
            "para",
            "uma",
            "se",
            "é",
            "ao",
            "como",
            "mais",
            "mas",
            "seus",
            "este",
            "esta",
            "foram",
            "entre",
            "sobre",
            "também",
            "foi",
            "são",
            "não",
            "no",
            "na",
            "nos",
            "nas",
            "pelo",
            "pela",
        ]
    ),
    "fr": frozenset(
        [
            "le",
            "les",
            "des",
            "et",
            "en",
            "que",
            "pour",
            "avec",
            "une",
            "est",
            "au",
            "comme",
            "plus",
            "mais",
            "ses",
            "cette",
            "sont",
            "dans",
            "du",
            "sur",
            "aussi",
            "été",
            "qui",
            "pas",
            "par",
            "ont",
        ]
    ),
    "de": frozenset(
        [
            "der",
            "die",
            "das",
            "und",
            "in",
            "den",
            "von",
            "zu",
            "mit",
            "ist",
            "für",
            "auf",
            "eine",
            "ein",
            "des",
            "dem",
            "nicht",
            "als",
            "auch",
            "sich",
            "wird",
            "werden",
            "sind",
            "bei",
            "oder",
            "aus",
        ]
    ),
    "it": frozenset(
        [
            "il",
            "gli",
            "le",
            "della",
            "delle",
            "dei",
            "e",
            "che",
            "per",
            "con",
            "una",
            "si",
            "è",
            "al",
            "come",
            "più",
            "ma",
            "suoi",
            "questo",
            "questa",
            "sono",
            "tra",
            "sul",
            "anche",
            "stato",
            "non",
            "nel",
            "nella",
            "degli",
        ]
    ),
}
LANGUAGES: Final = tuple(_WORDS)
#: Each language's words that no other list has (``que``, ``por``, ``en`` tell nothing).
_OWN: Final[dict[str, frozenset[str]]] = {
    lang: words.difference(*(w for other, w in _WORDS.items() if other != lang))
    for lang, words in _WORDS.items()
}
_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)
#: At least this many function words, and the best language this share ahead of the next.
MIN_HITS: Final = 3
MARGIN: Final = 1.5


def guess_language(text: str, *, limit: int = 400) -> str | None:
    """The language of ``text`` (its first ``limit`` words), or ``None``."""
    counts = dict.fromkeys(LANGUAGES, 0)
    for n, m in enumerate(_TOKEN.finditer(text)):
        if n >= limit:
            break
        word = m.group().lower()
        for lang, words in _OWN.items():
            if word in words:
                counts[lang] += 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    (best, hits), (_, second) = ranked[0], ranked[1]
    if hits < MIN_HITS or hits < second * MARGIN:
        return None
    return best


def majority_language(texts: Iterable[str]) -> str | None:
    """The language most of ``texts`` are in (ties and no guesses: ``None``)."""
    votes: dict[str, int] = {}
    for text in texts:
        lang = guess_language(text)
        if lang is not None:
            votes[lang] = votes.get(lang, 0) + 1
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
        return None
    return ranked[0][0]
