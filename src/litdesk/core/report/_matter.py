"""Front and back matter in a paper's text (pure): what a summary must not quote.

A summary unit speaks of the paper's body: its aim, methods, results. Excerpts also hold
author lists and affiliations, author-contribution statements, funding, conflict and
acknowledgement lines, journal headers and footers (licences, DOIs, received/accepted
dates) and reference entries. :func:`matter_kind` names such a sentence;
:func:`body_text` keeps the rest of an excerpt; :func:`mostly_matter` tells an excerpt
that is mostly matter. :class:`SeenSentences` keeps a paper's summary from repeating a
sentence. All patterns are linear-time regular expressions over one sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "MATTER_SHARE",
    "SeenSentences",
    "body_text",
    "matter_kind",
    "mostly_matter",
    "sentences",
]

#: An excerpt whose sentences are matter for at least this share of its characters is
#: mostly matter (not used for a summary).
MATTER_SHARE: Final = 0.5

_KINDS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    (
        "contributions",
        re.compile(
            r"\bauthors?['’]?\s+contributions?\b|\bcontributed\s+(?:equally|to\s+the\s+"
            r"(?:writing|design|study|work|manuscript))|\b(?:conceived|designed)\s+(?:and\s+"
            r"designed\s+)?the\s+(?:study|experiments?|work|project)\b|\bwrote\s+(?:the\s+)?"
            r"(?:first\s+draft|paper|manuscript)\b|\b(?:critically\s+)?revised\s+the\s+"
            r"manuscript\b|\ball\s+authors\s+(?:read|approved|contributed)\b|\bCRediT\b",
            re.IGNORECASE,
        ),
    ),
    (
        "funding",
        re.compile(
            r"\bfunding\b|\bfunded\s+by\b|\b(?:was|were|is|are)\s+(?:partly\s+|partially\s+|"
            r"financially\s+)?supported\s+by\b|\bgrants?\s+(?:no\.?|number|nos?\b|agreement)"
            r"|\bfinancial\s+support\b|\bfinanciad[oa]\b|\bfinanciamento\b|\bfinanciación\b",
            re.IGNORECASE,
        ),
    ),
    (
        "conflicts",
        re.compile(
            r"\bconflicts?\s+of\s+interests?\b|\bcompeting\s+(?:financial\s+)?interests?\b|"
            r"\bdeclare\s+(?:that\s+)?(?:they\s+have\s+)?no\b|\bconflito\s+de\s+interesses?\b|"
            r"\bconflicto\s+de\s+intereses\b",
            re.IGNORECASE,
        ),
    ),
    (
        "acknowledgements",
        re.compile(
            r"\backnowledge?(?:ment)?s?\b|\bwe\s+(?:also\s+|further\s+)?thank\b|\bwe\s+are\s+"
            r"(?:very\s+)?grateful\b|\bthe\s+authors\s+(?:would\s+like\s+to\s+)?thank\b|"
            r"\bagradecimentos?\b|\bagradecimientos?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "affiliation",
        re.compile(
            r"[\w.+-]+@[\w-]+\.[\w.]+|\bcorrespond(?:ing\s+author|ence\s+(?:to|should))\b|"
            r"\borcid\b|\b(?:department|dept\.?|faculty|school|institute|college)\s+of\s+"
            r"[A-Z][\w-]*(?:\s+[A-Z&][\w-]*)*\s*,\s*(?:[A-Z][\w-]*\s*)+,",
            re.IGNORECASE,
        ),
    ),
    (
        "journal",
        re.compile(
            r"©|\(c\)\s*(?:19|20)\d\d|\bcopyright\b|\bcreative\s+commons\b|\bopen\s+access\b"
            r"|\ball\s+rights\s+reserved\b|\bjournal\s+compilation\b|\bissn\b|\bdoi\s*:"
            r"|\bdoi\.org\b|https?://|\bwww\.|\b(?:received|accepted|revised|published"
            r"(?:\s+online)?)\s*:?\s*(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
            r"oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?(?:19|20)\d\d|\bacademic\s+editor\b|"
            r"\bcitation\s*:|\bproceedings\s+of\b|\bthis\s+is\s+an\s+open\b|\bpeer[- ]review",
            re.IGNORECASE,
        ),
    ),
    (
        "reference",
        re.compile(
            r"\b(?:19|20)\d\d[a-z]?\s*[;,]\s*\d{1,4}\s*(?:\(\d{1,4}\)\s*)?:\s*\d{1,5}"  # 2004;33:12
            r"|\bvol\.\s*\d+\s*,\s*(?:no\.\s*\d+\s*,\s*)?pp?\.\s*\d+"  # vol. 33, no. 6, pp. 362
            r"|^\s*\[\d{1,3}\]\s+[A-Z][\w'’-]+,?\s+(?:[A-Z]\.\s*)+",  # [4] W. C. Lee
        ),
    ),
    ("keywords", re.compile(r"^\s*(?:key\s*words?|palavras[- ]chave|palabras\s+clave)\b", re.I)),
)

_SENTENCE: Final = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9“\"(\[ÁÉÍÓÚÂÊÔÃÕÇ])|\n{2,}")
_WORD: Final = re.compile(r"[^\W\d_]+", re.UNICODE)
_MARKER: Final = re.compile(r"\[\d{1,4}\]")
_BULLET: Final = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (spacing folded; a break also at a blank line)."""
    parts = _SENTENCE.split(text)
    return [" ".join(p.split()) for p in parts if p and p.strip()]


def _name_list(sentence: str) -> bool:
    """An author list or a header line: mostly capitalised words, no lower-case run."""
    words = _WORD.findall(sentence)
    if len(words) < 4:
        return False
    lower = [
        w
        for w in words
        if w[0].islower()
        and w not in {"and", "e", "y", "und", "de", "da", "van", "von", "der", "del", "dos", "das"}
    ]
    return len(lower) <= len(words) // 8 and sentence.count(",") >= 2


def matter_kind(sentence: str) -> str | None:
    """What front or back matter ``sentence`` is (``"funding"``, ``"affiliation"``, ...),
    or ``None`` for a sentence of the body."""
    for kind, pattern in _KINDS:
        if pattern.search(sentence):
            return kind
    if _name_list(sentence):
        return "authors"
    return None


def body_text(text: str) -> str:
    """``text`` without its matter sentences (the body's sentences, spacing folded)."""
    return " ".join(s for s in sentences(text) if matter_kind(s) is None)


def mostly_matter(text: str, share: float = MATTER_SHARE) -> bool:
    """Whether matter sentences make up at least ``share`` of ``text``'s characters."""
    parts = sentences(text)
    total = sum(len(s) for s in parts)
    if total == 0:
        return True
    matter = sum(len(s) for s in parts if matter_kind(s) is not None)
    return matter / total >= share


def _key(sentence: str) -> str:
    return " ".join(_WORD.findall(_MARKER.sub("", sentence).casefold()))


@dataclass
class SeenSentences:
    """The sentences a paper's summary has used so far (compared with case, markers,
    digits and punctuation folded)."""

    keys: set[str] = field(default_factory=set)

    def fresh(self, text: str) -> str:
        """``text`` without the sentences already used (then marked used). Lines (bullets)
        are kept as lines; a line left with no sentence of its own is dropped."""
        out: list[str] = []
        for line in text.split("\n"):
            if not line.strip():
                out.append("")
                continue
            bullet = _BULLET.match(line)
            head = bullet.group(0) if bullet else ""
            kept: list[str] = []
            for s in sentences(line[len(head) :]):
                key = _key(s)
                if key and key in self.keys:
                    continue
                if key:
                    self.keys.add(key)
                kept.append(s)
            joined = " ".join(kept)
            if _key(joined):
                out.append(head + joined)
        return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
