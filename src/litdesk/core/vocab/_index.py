"""Controlled vocabularies (pure): subjects, the expansion provenance a pick records, and the
suggestion index over one or more vocabularies.

:class:`SubjectIndex` answers a typed term in two tiers, as the reference workspace does:

1. exact and prefix matches of a label or synonym (normalised: NFKC, case-folded, spaces
   collapsed), exact first, then shorter labels first — found by binary search in the
   sorted keys, so a keystroke costs ``O(log n + matches)``;
2. then a few spelling suggestions, only for letter-only input of 6 to 160 characters
   that is not all upper case (an acronym or a gene symbol is never "corrected"):
   candidates sharing the most character trigrams with the input, kept when their
   Damerau–Levenshtein distance (to the label's start of the same length, or the whole
   label) is at most a fifth of the input's length.
"""

from __future__ import annotations

import bisect
import heapq
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError

__all__ = [
    "EXPANSION_LIMITS",
    "MAX_PREFIX",
    "MAX_SPELLING",
    "Expansion",
    "ExpansionInvalid",
    "Subject",
    "SubjectIndex",
    "Suggestion",
    "merge_indexes",
    "normalise",
    "read_expansions",
    "spelling_allowed",
]

#: Prefix matches returned at most; spelling suggestions at most.
MAX_PREFIX: Final = 8
MAX_SPELLING: Final = 3
#: at most this many typed words are matched in any order (the active term is short)
_MAX_WORDS: Final = 8
#: labels checked at most for words in any order (the rarest typed word's): a keystroke's budget
_MAX_WORD_SCAN: Final = 2000
_SPELL_MIN, _SPELL_MAX = 6, 160
_SHORTLIST: Final = 40
#: Spelling compares the first characters only (typed terms are label starts), and skips
#: trigrams shared by more than this share of all entries (they tell nothing apart).
_GRAM_CHARS: Final = 24
_COMMON_SHARE: Final = 0.06
_COMPARE_CHARS: Final = 32
_LETTERS: Final = re.compile(r"[^\W\d_]+(?:[ \-'][^\W\d_]+)*")

#: Expansion provenance limits (as the reference validates them).
EXPANSION_LIMITS: Final = {
    "entries": 6,
    "vocabulary_chars": 100,
    "id_chars": 200,
    "terms": 8,
    "term_chars": 180,
}


class ExpansionInvalid(InputError):
    """Expansion provenance (a picked subject) does not fit its limits."""

    default_code = "expansion"


def normalise(text: str) -> str:
    """The key a label or a typed term is compared by (NFKC, case-folded, spaces
    collapsed)."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True, slots=True)
class Subject:
    """One subject of a vocabulary: ``vocabulary`` (e.g. ``mesh``), its ``id`` there
    (``D003920``), the preferred ``label`` and the vocabulary's synonyms (entry terms)."""

    vocabulary: str
    id: str
    label: str
    synonyms: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "vocabulary": self.vocabulary,
            "id": self.id,
            "label": self.label,
            "synonyms": list(self.synonyms),
        }


@dataclass(frozen=True, slots=True)
class Expansion:
    """Expansion provenance: the subject a user picked into the query (vocabulary, id,
    terms: the label, then any synonyms the user chose to add)."""

    vocabulary: str
    id: str
    terms: tuple[str, ...]

    @property
    def label(self) -> str:
        return self.terms[0]

    def to_dict(self) -> dict[str, Any]:
        return {"vocabulary": self.vocabulary, "id": self.id, "terms": list(self.terms)}


def read_expansions(data: object) -> tuple[Expansion, ...]:
    """Validate untrusted expansion provenance (a list of ``{vocabulary, id, terms}``)."""
    limits = EXPANSION_LIMITS
    if not isinstance(data, (list, tuple)) or len(data) > limits["entries"]:
        raise ExpansionInvalid(f"expansions must be a list of at most {limits['entries']}")
    out: list[Expansion] = []
    for index, item in enumerate(data):
        if not isinstance(item, Mapping) or set(item) - {"vocabulary", "id", "terms"}:
            raise ExpansionInvalid(f"expansions[{index}] must be {{vocabulary, id, terms}}")
        vocabulary, ident, terms = item.get("vocabulary"), item.get("id"), item.get("terms")
        if not isinstance(vocabulary, str) or not 0 < len(vocabulary) <= limits["vocabulary_chars"]:
            raise ExpansionInvalid(f"expansions[{index}].vocabulary must be 1 to 100 characters")
        if not isinstance(ident, str) or not 0 < len(ident) <= limits["id_chars"]:
            raise ExpansionInvalid(f"expansions[{index}].id must be 1 to 200 characters")
        if (
            not isinstance(terms, (list, tuple))
            or not 0 < len(terms) <= limits["terms"]
            or any(
                not isinstance(t, str) or not t.strip() or len(t) > limits["term_chars"]
                for t in terms
            )
        ):
            raise ExpansionInvalid(
                f"expansions[{index}].terms must be 1 to {limits['terms']} texts of at most "
                f"{limits['term_chars']} characters"
            )
        out.append(Expansion(vocabulary, ident, tuple(terms)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One suggestion: the subject, the text that matched (label or a synonym) and how
    (``exact``, ``prefix`` or ``spelling``)."""

    subject: Subject
    matched: str
    kind: str

    def to_dict(self) -> dict[str, Any]:
        return self.subject.to_dict() | {"matched": self.matched, "kind": self.kind}


def spelling_allowed(text: str) -> bool:
    """Whether ``text`` may get spelling suggestions: letters only (words joined by a
    space, hyphen or apostrophe), 6 to 160 characters, not all upper case."""
    return (
        _SPELL_MIN <= len(text) <= _SPELL_MAX
        and _LETTERS.fullmatch(text) is not None
        and not text.isupper()
    )


def _words(key: str) -> list[str]:
    """A normalised key's words (letters and digits; commas, hyphens, brackets split)."""
    return "".join(ch if ch.isalnum() else " " for ch in key).split()


def _trigrams(key: str) -> set[str]:
    padded = f"  {key[:_GRAM_CHARS]} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def _distance(a: str, b: str, bound: int) -> int:
    """Optimal-string-alignment distance of ``a`` and ``b`` within a band of ``bound``
    around the diagonal, or ``bound + 1`` once it is certainly over ``bound``."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    over = bound + 1
    width = len(b)
    prev2: list[int] = []
    prev = [j if j <= bound else over for j in range(width + 1)]
    for i in range(1, len(a) + 1):
        cur = [over] * (width + 1)
        if i <= bound:
            cur[0] = i
        lo, hi = max(1, i - bound), min(width, i + bound)
        low = cur[0]
        ai = a[i - 1]
        for j in range(lo, hi + 1):
            # plain comparisons: this loop is the spelling tier's cost per keystroke
            value = prev[j - 1] + (ai != b[j - 1])
            up, left = prev[j] + 1, cur[j - 1] + 1
            if up < value:  # noqa: PLR1730
                value = up
            if left < value:  # noqa: PLR1730
                value = left
            if i > 1 and j > 1 and ai == b[j - 2] and a[i - 2] == b[j - 1]:
                swap = prev2[j - 2] + 1
                if swap < value:  # noqa: PLR1730
                    value = swap
            cur[j] = value
            if value < low:  # noqa: PLR1730
                low = value
        if low > bound:
            return over
        prev2, prev = prev, cur
    return prev[-1] if prev[-1] <= bound else over


class SubjectIndex:
    """The suggestion index over the subjects of one or more vocabularies (built once;
    read-only afterwards, so threads may share it)."""

    def __init__(self, subjects: Iterable[Subject]) -> None:
        self.subjects: tuple[Subject, ...] = tuple(subjects)
        entries: list[tuple[str, int, str]] = []
        for number, subject in enumerate(self.subjects):
            for text in (subject.label, *subject.synonyms):
                key = normalise(text)
                if key:
                    entries.append((key, number, text))
        entries.sort()
        self._keys = [e[0] for e in entries]
        self._entries = entries
        grams: dict[str, list[int]] = {}
        for position, (key, _number, _text) in enumerate(entries):
            for gram in _trigrams(key):
                grams.setdefault(gram, []).append(position)
        self._grams = grams
        # every word of every label and synonym, for words typed in another order
        # ("knee osteo" finds "Osteoarthritis, Knee")
        words = sorted(
            {
                (word, position)
                for position, (key, _n, _t) in enumerate(entries)
                for word in _words(key)
            }
        )
        self._word_keys = [w[0] for w in words]
        self._word_entries = [w[1] for w in words]
        self._by_id = {(s.vocabulary, s.id): s for s in self.subjects}

    def __len__(self) -> int:
        return len(self.subjects)

    def get(self, vocabulary: str, ident: str) -> Subject | None:
        return self._by_id.get((vocabulary, ident))

    def suggest(self, text: str, *, limit: int = MAX_PREFIX) -> list[Suggestion]:
        """Suggestions for a typed term: exact and prefix matches (exact first, shorter
        labels first, at most ``limit``), then up to :data:`MAX_SPELLING` spelling
        suggestions when :func:`spelling_allowed`."""
        key = normalise(text)
        if len(key) < 2:
            return []
        lo = bisect.bisect_left(self._keys, key)
        hi = bisect.bisect_left(self._keys, key + "\U0010ffff")
        best: dict[int, tuple[int, int, str, str, str]] = {}
        for position in range(lo, hi):
            entry_key, number, matched = self._entries[position]
            label = self.subjects[number].label
            rank = (0 if entry_key == key else 1, len(label), label.casefold(), matched)
            kind = "exact" if entry_key == key else "prefix"
            current = best.get(number)
            if current is None or rank < current[:4]:
                best[number] = (*rank, kind)
        chosen = heapq.nsmallest(limit, best.items(), key=lambda item: item[1][:4])
        out = [Suggestion(self.subjects[n], r[3], r[4]) for n, r in chosen]
        reordered: dict[int, Suggestion] = {}
        if len(out) < limit:
            reordered = self._any_order(key, {n for n, _ in chosen}, limit - len(out))
            out.extend(reordered.values())
        exact = any(s.kind == "exact" for s in out)
        if not exact and spelling_allowed(text.strip()):
            taken = {n for n, _ in chosen} | set(best) | set(reordered)
            out.extend(self._spelling(key, taken))
        return out

    def _any_order(self, key: str, taken: set[int], room: int) -> dict[int, Suggestion]:
        """Labels with a word beginning with each typed word, in any order (MeSH inverts
        its headings: "knee osteo" is "Osteoarthritis, Knee"); shorter labels first."""
        typed = _words(key)
        if len(typed) < 2 or len(typed) > _MAX_WORDS:
            return {}
        spans = []
        for word in typed:
            lo = bisect.bisect_left(self._word_keys, word)
            hi = bisect.bisect_left(self._word_keys, word + "\U0010ffff")
            if lo == hi:
                return {}
            spans.append((hi - lo, lo, hi, word))
        spans.sort()
        size, lo, hi, _word = spans[0]
        if size > _MAX_WORD_SCAN:  # every typed word is very common ("a b"): no answer
            return {}
        rest = [w for _s, _l, _h, w in spans[1:]]
        found: dict[int, tuple[int, str, str]] = {}
        for position in dict.fromkeys(self._word_entries[lo:hi]):
            entry_key, number, matched = self._entries[position]
            if number in taken:
                continue
            words = _words(entry_key)
            if all(any(w.startswith(t) for w in words) for t in rest):
                label = self.subjects[number].label
                rank = (len(label), label.casefold(), matched)
                if number not in found or rank < found[number]:
                    found[number] = rank
        ranked = heapq.nsmallest(room, found.items(), key=lambda item: item[1])
        return {n: Suggestion(self.subjects[n], r[2], "words") for n, r in ranked}

    def _spelling(self, key: str, taken: set[int]) -> list[Suggestion]:
        counts: Counter[int] = Counter()
        common = max(50, int(len(self._entries) * _COMMON_SHARE))
        counted = 0
        for gram in _trigrams(key):
            postings = self._grams.get(gram, ())
            if len(postings) <= common:
                counts.update(postings)  # counted in C: the keystroke budget
                counted += 1
        if not counts:
            return []
        shortlist = counts.most_common(_SHORTLIST)
        key = key[:_COMPARE_CHARS]
        bound = max(1, len(key) // 5)
        # an edit changes at most three trigrams: fewer shared ones cannot be within bound
        # (one more of slack for the end-of-label trigram a prefix does not have)
        least = counted - 3 * bound - 1
        found: dict[int, tuple[int, int, str]] = {}
        for position, shared in shortlist:
            if shared < least:
                break  # the shortlist is in order of shared trigrams
            entry_key, number, matched = self._entries[position]
            if number in taken:
                continue
            distance = min(
                _distance(key, entry_key[: len(key)], bound),
                _distance(key, entry_key[:_COMPARE_CHARS], bound),
            )
            if distance <= bound:
                label = self.subjects[number].label
                rank = (distance, len(label), matched)
                if number not in found or rank < found[number]:
                    found[number] = rank
        ranked = sorted(found.items(), key=lambda item: item[1])[:MAX_SPELLING]
        return [Suggestion(self.subjects[n], r[2], "spelling") for n, r in ranked]


def merge_indexes(parts: Sequence[Iterable[Subject]]) -> SubjectIndex:
    """One index over several vocabularies' subjects."""
    return SubjectIndex(s for part in parts for s in part)
