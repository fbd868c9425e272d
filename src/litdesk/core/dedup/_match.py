"""Two-stage deduplication of bibliographic records (pure).

Stage 1 merges records that share an identifier (the identity graph of fused search;
conflicting identifiers are never merged). Stage 2 looks for duplicates among the
remaining groups by bibliographic similarity, with blocking so it scales, and decides
each candidate pair:

* ``merge`` — automatic, above the strict rule (see :data:`RULES`), reason recorded;
* ``review`` — the uncertain band, waiting for the reviewer;
* ``linked`` — a preprint and its published version, or a reply/comment and the item
  it answers: linked, never merged;
* ``distinct`` — conflicting identifiers (trial registry numbers included) or a
  contradiction (never merged).

Titles also tell what a record is (:func:`title_info`): correction notices, replies and
Embase records of several letters are decided by their own rules (E, L; see
:func:`_decide_kinds`).

Every decision can be overridden by a reviewer decision keyed by the pair of records;
nothing is lost: every input record ends in exactly one group.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from rapidfuzz import fuzz

from litdesk.core.fusion import NAMESPACES, Conflict, group_keys, identity_keys
from litdesk.core.records import Paper

from ._cache import ContentCache, PairCache
from ._chains import UF, Chains
from ._normalize import (
    REGISTRY_NAMESPACES,
    TitleKind,
    author_surnames,
    first_author_names,
    first_author_surname,
    first_author_words,
    first_page,
    journal_key,
    journal_matches,
    page_range,
    parse_title,
    registry_ids,
    volume_key,
)
from ._shared import check_shared
from ._versions import Relation, Version, meeting_abstract, version_relation, versions_of
from ._vetoes import doi_component, vetoes

__all__ = [
    "DEDUP_VERSION",
    "FEATURE_CACHE",
    "PAIR_CACHE",
    "RULES",
    "Decision",
    "DedupResult",
    "Pair",
    "deduplicate",
]

DEDUP_VERSION: Final = "litdesk-dedup-v4"
Decision = Literal["merge", "review", "linked", "distinct"]

#: The documented thresholds (title similarity is rapidfuzz's ratio on normalised titles, 0–1).
RULES: Final = {
    "auto_title": 0.95,  # automatic merge needs at least this title similarity …
    "auto_short_title_words": 4,  # … titles shorter than this need page or volume agreement too
    "fingerprint_title": 0.80,  # rule B: with author, year, volume and first page agreeing
    # (the title similarity there may be the containment of the shorter title, ≥ 5 words)
    "same_title": 0.98,  # rule C: identical long titles …
    "same_title_words": 6,  # … of at least this many words
    "review_title": 0.85,  # the uncertain band starts here (with author and year agreeing)
    "review_title_weak": 0.70,  # … or here when page and volume also agree
    "linked_title": 0.85,  # preprint ↔ published version; a reply ↔ the item it answers
    "merge_corrections": False,  # rule E: a correction notice joins the article it corrects
    # (off: such pairs wait for review — the labelled sets disagree on errata)
    "max_year_gap": 1,
    "max_block": 250,  # blocks larger than this are not paired (counted in the result)
    "max_chain_pairs": 2500,  # a join needing more cross-pair checks waits for review
}
_PREPRINT_VENUES: Final = (
    "arxiv",
    "biorxiv",
    "medrxiv",
    "ssrn",
    "research square",
    "preprints",
    "chemrxiv",
    "psyarxiv",
    "osf preprints",
    "authorea",
    "working paper",
    "discussion paper",
    "preprint",
)
#: Publication types of a preprint or working paper (RIS ``UNPB``, Crossref's
#: ``posted-content``, EndNote's "Unpublished Work").
_PREPRINT_TYPES: Final = ("preprint", "posted-content", "working paper", "unpublished")


@dataclass(frozen=True, slots=True)
class Pair:
    """A candidate pair of records (input indices ``a < b``) with its evidence and decision."""

    a: int
    b: int
    score: float
    evidence: dict[str, Any]
    decision: Decision
    reason: str
    stage: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "score": round(self.score, 4),
            "evidence": self.evidence,
            "decision": self.decision,
            "reason": self.reason,
            "stage": self.stage,
        }


@dataclass(slots=True)
class DedupResult:
    groups: list[list[int]]
    pairs: list[Pair]
    counts: dict[str, int] = field(default_factory=dict)
    version: str = DEDUP_VERSION
    #: identifier conflicts: shared identifiers not trusted, conflicting values (input indices)
    conflicts: list[Conflict] = field(default_factory=list)
    #: "version of" links between records kept apart (preprint ↔ published, meeting
    #: abstract ↔ full paper, correction notice ↔ article): both kept, the primary screened
    versions: list[Version] = field(default_factory=list)

    @property
    def removable(self) -> int:
        return sum(len(g) - 1 for g in self.groups)


#: Identifier namespaces compared in stage 2: the identity graph's and trial registries'.
_ID_NS: Final = (*NAMESPACES, *REGISTRY_NAMESPACES)


@dataclass(slots=True)
class _Features:
    title: str
    alt_titles: tuple[str, ...]  # a translated (or original-language) title, normalised
    title_sorted: str  # the title's words sorted: token_sort_ratio's form, made once
    words: int
    surname: str
    names: frozenset[str]
    full_name: frozenset[str]  # every word of the first author's name
    surnames: frozenset[str]
    year: int | None
    journal: tuple[str, ...]
    volume: str
    issue: str
    page: str
    page_digits: str  # the first page's digits: "c37" ~ "37", "e1234" ~ "1234"
    pages: tuple[int, int] | None
    page_span: tuple[int, int] | None  # the page range when well formed (not "2297-2108")
    ids: dict[str, set[str]]
    doi_prefix: str
    preprint: bool
    abstract_only: bool  # a meeting/conference abstract
    kind: TitleKind
    cites: tuple[tuple[str, str], ...]
    erratum_in: tuple[tuple[str, str, str], ...]
    blocks: tuple[str, ...] = ()  # the blocking keys (:func:`_blocking_keys`), made once


def _features(
    papers: Sequence[Paper],
    keys: Sequence[dict[str, set[str]]] | None = None,
    alt_titles: Sequence[str] = (),
) -> _Features:
    def first(name: str) -> Any:
        for p in papers:
            v = getattr(p, name)
            if v:
                return v
        return None

    title, info = parse_title(first("title"))
    words = title.split()
    kind = info.kind
    types = " ".join(t.lower() for p in papers for t in p.publication_types)
    if kind == "article" and ("erratum" in types or "corrigendum" in types):
        kind = "correction"
    ids: dict[str, set[str]] = {}
    for k in keys if keys is not None else [identity_keys(p) for p in papers]:
        for ns, vals in k.items():
            if ns in NAMESPACES:
                ids.setdefault(ns, set()).update(vals)
    for p in papers:
        for ns, vals in registry_ids(p.title, p.journal, p.abstract).items():
            ids.setdefault(ns, set()).update(vals)
    doi = next(iter(sorted(ids.get("doi", set()))), "")
    venue = (first("journal") or "").lower()
    preprint = (
        any(t in types for t in _PREPRINT_TYPES)
        or any(v in venue for v in _PREPRINT_VENUES)
        or bool(ids.get("arxiv"))
        and not venue
        or doi.startswith(("10.1101/", "10.48550/", "10.21203/", "10.2139/"))
    )
    authors = first("authors") or ()
    page = first_page(first("pages"))
    alts = tuple(dict.fromkeys(t for a in alt_titles if (t := parse_title(a)[0]) and t != title))
    f = _Features(
        title=title,
        alt_titles=alts,
        title_sorted=" ".join(sorted(words)),
        words=len(words),
        surname=first_author_surname(authors),
        names=first_author_names(authors),
        full_name=first_author_words(authors),
        surnames=author_surnames(authors),
        year=first("year"),
        journal=journal_key(first("journal")),
        volume=volume_key(first("volume")),
        issue=volume_key(first("issue")),
        page=page,
        page_digits="".join(c for c in page if c.isdigit()),
        pages=page_range(first("pages")),
        page_span=_page_span(first("pages")),
        ids=ids,
        doi_prefix=doi.split("/", 1)[0] if doi else "",
        preprint=preprint,
        abstract_only=meeting_abstract(types, venue, first("issue"), first("volume")),
        kind=kind,
        cites=info.cites,
        erratum_in=info.erratum_in,
    )
    f.blocks = tuple(_blocking_keys(f))
    return f


#: each record group's features by its content (its records and their other titles): a
#: regrouping after a change of a Study's sources computes only the changed records' again
#: (the identity keys passed to :func:`_features` are the records' own, so not in the key)
FEATURE_CACHE: Final[ContentCache[tuple[tuple[Paper, ...], tuple[str, ...]], _Features]] = (
    ContentCache(20_000)
)


def _cached_features(
    members: Sequence[int],
    papers: Sequence[Paper],
    all_keys: Sequence[dict[str, set[str]]],
    alts: Mapping[int, Sequence[str]],
) -> _Features:
    group = tuple(papers[i] for i in members)
    titles = tuple(t for i in members for t in alts.get(i, ()))
    return FEATURE_CACHE.get(
        (group, titles), lambda: _features(group, [all_keys[i] for i in members], titles)
    )


#: a candidate pair's score, evidence and decision (None: nothing decides it, nothing kept)
_Judged = tuple[float, dict[str, Any], tuple[Decision, str]] | None
#: each candidate pair's judgement by the pair of its record groups' cached features and
#: the rules in force: a regrouping after a change of a Study's sources judges only the
#: pairs a changed record group is in (~350 bytes a pair; a 5,000-record Study has ~35,000)
PAIR_CACHE: Final[PairCache[_Features, _Judged]] = PairCache(60_000)


def _judge(a: _Features, b: _Features, corrections: bool) -> _Judged:
    score, ev = _score(a, b)
    decided = _decide(a, b, ev, corrections)
    return None if decided is None else (score, ev, decided)


_SPAN: Final = re.compile(r"^\s*[A-Za-z]?(\d{1,7})\s*[-–—‐]+\s*[A-Za-z]?(\d{1,7})\s*$")


def _page_span(pages: str | None) -> tuple[int, int] | None:
    """The page range (or single page) when well formed; None for "2297-2108"."""
    span = page_range(pages)
    m = _SPAN.match(pages or "")
    if span is not None and m is not None and span[0] == span[1] and m.group(1) != m.group(2):
        return None  # the range ends before it starts: page_range kept its first page
    return span


def _blocking_keys(f: _Features) -> list[str]:
    keys: list[str] = []
    words = f.title.split()
    if len(words) >= 3:
        keys.append("t:" + " ".join(words[:5]))
        keys.append("T:" + " ".join(words[-5:]))
        longest = sorted(set(words), key=lambda w: (-len(w), w))[:3]
        keys.append("w:" + " ".join(sorted(longest)))
    elif words:
        keys.append("t:" + " ".join(words))
    if f.surname and f.year:
        keys.append(f"a:{f.surname}:{f.year}")
    if f.page and f.volume:
        keys.append(f"p:{f.volume}:{f.page}")
    return keys


def _conflicts(a: _Features, b: _Features) -> list[str]:
    return _id_clash(a.ids, b.ids)


def _id_clash(x: Mapping[str, set[str]], y: Mapping[str, set[str]]) -> list[str]:
    """Namespaces where both hold identifiers and share none; a DOI and its own
    component's DOI (a supplement file, figure, table) are the same work, no clash."""
    out = [ns for ns in _ID_NS if x.get(ns) and y.get(ns) and not (x[ns] & y[ns])]
    if "doi" in out and all(any(doi_component(d, e) for e in y["doi"]) for d in x["doi"]):
        out.remove("doi")
    return out


def _agree(x: str | tuple[str, ...], y: str | tuple[str, ...]) -> bool | None:
    if not x or not y:
        return None
    return x == y


def _pages_agree(a: _Features, b: _Features) -> bool | None:
    if not a.page or not b.page:
        return None
    if a.page == b.page:
        return True
    return bool(a.page_digits) and a.page_digits == b.page_digits


def _same_first_author(a: _Features, b: _Features) -> bool:
    """The first authors' surnames agree, allowing particles and compound surnames
    written differently ("Le, Quintrec M." ~ "Le Quintrec, M."; "Goicoechea de Jorge" ~
    "de Jorge")."""
    return bool(a.surname) and (a.surname == b.surname or bool(a.names & b.names))


def _authors_agree(a: _Features, b: _Features) -> bool | None:
    if not a.surname or not b.surname:
        return None
    if _same_first_author(a, b):
        return True
    if (a.names and a.names <= b.full_name) or (b.names and b.names <= a.full_name):
        return True  # the first author's name with its parts swapped ("Si Hyun, Kang")
    shared = a.surnames & b.surnames
    smaller = min(len(a.surnames), len(b.surnames))
    # "Rubio, M. L." ~ "Lopez Rubio, M."; a first author parsed differently
    return bool(shared) and (len(shared) >= 2 or smaller == 1)


#: The score's weights of agreeing fields (half the weight when unknown); title 0.55 and
#: year 0.07 (half for a gap of one year or an unknown year) make up the rest.
_WEIGHTS: Final = {
    "author": 0.15,
    "journal": 0.08,
    "volume": 0.06,
    "page": 0.06,
    "doi_prefix": 0.03,
}


def _score(a: _Features, b: _Features) -> tuple[float, dict[str, Any]]:
    title = 0.0
    if a.title and b.title:
        title = fuzz.ratio(a.title, b.title) / 100
        if title < RULES["auto_title"]:
            # = fuzz.token_sort_ratio(a.title, b.title, score_cutoff=60)
            title = max(title, fuzz.ratio(a.title_sorted, b.title_sorted, score_cutoff=60) / 100)
        if title < RULES["auto_title"] and (a.alt_titles or b.alt_titles):
            # a translated title recorded on either side: the best pair of variants
            title = max(
                title,
                *(
                    fuzz.ratio(x, y) / 100
                    for x in (a.title, *a.alt_titles)
                    for y in (b.title, *b.alt_titles)
                ),
            )
    year_gap = abs(a.year - b.year) if a.year and b.year else None
    shifted = _shifted(a, b)
    ev: dict[str, Any] = {
        "title": round(title, 4),
        "author": _authors_agree(a, b),
        "year_gap": year_gap,
        "journal": journal_matches(a.journal, b.journal) if a.journal and b.journal else None,
        "volume": True if shifted else _agree(a.volume, b.volume),
        "page": None if shifted else _pages_agree(a, b),
        "issue": None if shifted else _agree(a.issue, b.issue),
        "doi_prefix": _agree(a.doi_prefix, b.doi_prefix),
    }
    if shifted:
        ev["fields_shifted"] = True
    if a.kind != b.kind:
        ev["kinds"] = sorted((a.kind, b.kind))
    score = 0.55 * title
    for name, w in _WEIGHTS.items():
        v = ev[name]
        score += w if v is True else (w / 2 if v is None else 0.0)
    score += 0.07 if year_gap == 0 else (0.035 if year_gap in (None, 1) else 0.0)
    return score, ev


def _shifted(a: _Features, b: _Features) -> bool:
    """One record lacks a volume and holds the other's volume and issue in its issue and
    page fields: the fields were shifted by one place on export (seen in meeting
    abstracts), so volume agrees and the page is unknown."""
    for x, y in ((a, b), (b, a)):
        if not x.volume and x.issue and x.issue == y.volume and x.page and x.page == y.issue:
            return True
    return False


def _contained(a: _Features, b: _Features) -> float:
    """How well the shorter title (≥ 5 words) is contained in the longer one (0–1); a
    shorter title of 3–4 words counts (1.0) only as the longer one's opening words (the
    same title without its subtitle: "Unilateral neglect in stroke: a comparative study")."""
    if min(a.words, b.words) < 5:
        short, long_ = (a.title, b.title) if a.words <= b.words else (b.title, a.title)
        if min(a.words, b.words) >= 3 and long_.startswith(short + " "):
            return 1.0
        return 0.0
    return fuzz.partial_ratio(a.title, b.title) / 100


def _implied_correction(a: _Features, b: _Features, ev: dict[str, Any]) -> _Features | None:
    """An unmarked correction notice: a one-page item in a later issue of the same journal
    volume under the identical (long) title and first author of a multi-page article."""
    if not (
        ev["journal"] is True
        and ev["volume"] is True
        and ev["issue"] is False
        and float(ev["title"]) >= RULES["same_title"]
        and min(a.words, b.words) >= RULES["same_title_words"]
        and _same_first_author(a, b)
        and a.pages
        and b.pages
    ):
        return None
    for x, y in ((a, b), (b, a)):
        if (
            x.pages
            and y.pages
            and x.pages[0] == x.pages[1]
            and x.pages[0] > y.pages[1] > y.pages[0]
        ):
            return x
    return None


def _decide(
    a: _Features, b: _Features, ev: dict[str, Any], merge_corrections: bool
) -> tuple[Decision, str] | None:
    """The pair's decision: the rules below, then the vetoes (an automatic merge with a
    veto waits for review) and the "version of" relation (recorded in the evidence)."""
    decided = _decide_rules(a, b, ev, merge_corrections)
    relation = version_relation(a, b, ev, decided[0] if decided else None)
    if relation is not None:
        ev["version"] = relation
        if relation["relation"] == "abstract" and decided is None:
            decided = "linked", "a meeting abstract and the full paper: versions, linked"
    if decided is None or decided[0] in ("distinct", "linked"):
        return decided
    if relation is not None and relation["relation"] == "correction":
        return decided  # a notice is another item by nature: merged only when asked (rule E)
    vetoed = vetoes(a, b, ev)
    if vetoed:
        ev["vetoes"] = vetoed
        if decided[0] == "merge":
            return "review", f"vetoed: {'; '.join(vetoed)} (was: {decided[1]})"
    return decided


def _decide_rules(
    a: _Features, b: _Features, ev: dict[str, Any], merge_corrections: bool
) -> tuple[Decision, str] | None:
    conflicts = _conflicts(a, b)
    title = float(ev["title"])
    if conflicts == ["doi"] and a.preprint != b.preprint:
        conflicts = []  # a preprint's DOI and its published version's: versions, see below
    if conflicts:
        if title >= RULES["review_title"]:
            return "distinct", "conflicting identifiers: " + ", ".join(conflicts)
        return None
    if not a.title or not b.title:
        return None  # no title: never decided on the other fields alone
    gap = ev["year_gap"]
    author, page, volume, journal = ev["author"], ev["page"], ev["volume"], ev["journal"]
    if a.preprint != b.preprint:
        if title >= RULES["linked_title"] and author is not False:
            return "linked", "a preprint and a published version: linked, not merged"
        return None
    if a.kind != b.kind:
        return _decide_kinds(a, b, ev, merge_corrections)
    if a.kind == "article" and (corr := _implied_correction(a, b, ev)) is not None:
        ev["kinds"] = ["article", "correction (one page, later issue)"]
        return _decide_correction(corr, b if corr is a else a, ev, merge_corrections)
    contradiction = [n for n in ("page", "volume", "journal") if ev[n] is False]
    year_ok = gap is None or gap <= RULES["max_year_gap"]
    agreed = [n for n in ("author", "journal", "volume", "page") if ev[n] is True]
    # rule A: near-identical titles with nothing contradicting and something agreeing
    if (
        title >= RULES["auto_title"]
        and year_ok
        and author is not False
        and not contradiction
        and (min(a.words, b.words) >= RULES["auto_short_title_words"] or page or volume)
        and agreed
    ):
        return "merge", f"rule A: title {title:.2f}, year gap {gap}, agree: {', '.join(agreed)}"
    # rule B: the bibliographic fingerprint (author, year, volume, first page) agrees and
    # the titles are close (a subtitle, a translation note, a typo)
    fingerprint = gap == 0 and _same_first_author(a, b) and volume and page
    if fingerprint and title < RULES["fingerprint_title"]:
        ev["title_contained"] = round(_contained(a, b), 4)
    if (
        fingerprint
        and max(title, float(ev.get("title_contained", 0.0))) >= RULES["fingerprint_title"]
        and (journal is not False or title >= RULES["auto_title"])
    ):
        return "merge", f"rule B: author, year, volume and first page agree; title {title:.2f}"
    # rule C: the same paper in the same journal volume with a page discrepancy (a typo,
    # or a supplement/meeting page): identical long title, author, year, journal, volume
    if (
        title >= RULES["same_title"]
        and min(a.words, b.words) >= RULES["same_title_words"]
        and gap == 0
        and _same_first_author(a, b)
        and journal
        and volume
    ):
        return "merge", f"rule C: same title, author, year, journal and volume; title {title:.2f}"
    if year_ok and (
        (title >= RULES["review_title"] and author is not False)
        or (title >= RULES["review_title_weak"] and author and page and volume)
    ):
        why = ", ".join(contradiction) if contradiction else "similarity below the automatic rule"
        return "review", f"uncertain: title {title:.2f}; {why}"
    return None


def _decide_correction(
    corr: _Features, art: _Features, ev: dict[str, Any], merge_corrections: bool
) -> tuple[Decision, str] | None:
    """Rule E (see :func:`_decide_kinds`): a correction notice and an article."""
    title = float(ev["title"])
    gap, author, journal, volume = ev["year_gap"], ev["author"], ev["journal"], ev["volume"]
    if (gap is not None and gap > RULES["max_year_gap"]) or author is False or journal is False:
        return None
    if title < RULES["auto_title"] and min(corr.words, art.words) >= RULES["same_title_words"]:
        ev["title_contained"] = round(_contained(corr, art), 4)
    title_ok = max(title, float(ev.get("title_contained", 0.0))) >= RULES["auto_title"]
    tie = ""
    if art.volume and art.page and (art.volume, art.page) in corr.cites:
        tie = f"the notice cites volume {art.volume}, page {art.page}"
    elif any(
        vol == corr.volume and ((pg and pg == corr.page) or (iss and iss == corr.issue))
        for vol, iss, pg in art.erratum_in
    ):
        tie = "the article's erratum note cites the notice"
    elif volume is True and journal is True:
        tie = "same journal volume"
    if merge_corrections and title_ok and tie:
        return "merge", f"rule E: a correction notice and the article it corrects ({tie})"
    if title >= RULES["review_title"] or title_ok:
        why = f"tied: {tie}" if tie else "no citation ties them"
        return "review", f"a correction notice and the article it may correct ({why})"
    return None


def _decide_kinds(
    a: _Features, b: _Features, ev: dict[str, Any], merge_corrections: bool
) -> tuple[Decision, str] | None:
    """Records of different kinds under the same title (see ``title_info``).

    * rule E — a correction notice (erratum, corrigendum, correction) and the article it
      corrects: when the titles agree (≥ auto_title, or the shorter one, ≥ 6 words,
      contained in the longer one: exporters truncate), year gap ≤ 1, authors and
      journals not contradicting, the pair waits for review with what ties the two in
      its reason (the notice cites the article's volume and first page; the article's
      MEDLINE note cites the notice's volume and page or issue; or the same journal
      volume). With ``merge_corrections`` a tied pair is merged instead (the notice
      stays a source record of the group). Review is the default because the labelled
      benchmark sets disagree: most of haematology's errata are labelled duplicates of
      their article, copper's erratum and a few of haematology's are not.
    * rule L — an Embase record of several letters ("(multiple letters)": a letter and
      its reply under one record) and a letter or reply whose first page lies in its
      page range, same title, journal and volume: merged.
    * a reply or comment and the item it answers (same title): linked, never merged.
    """
    title = float(ev["title"])
    gap, author, journal, volume = ev["year_gap"], ev["author"], ev["journal"], ev["volume"]
    year_ok = gap is None or gap <= RULES["max_year_gap"]
    kinds = {a.kind, b.kind}
    if not year_ok or author is False or journal is False:
        return None
    if kinds == {"correction", "article"}:
        corr, art = (a, b) if a.kind == "correction" else (b, a)
        return _decide_correction(corr, art, ev, merge_corrections)
    if "letters" in kinds and kinds <= {"letters", "article", "reply"}:
        bundle, other = (a, b) if a.kind == "letters" else (b, a)
        inside = (
            bundle.pages is not None
            and other.pages is not None
            and bundle.pages[0] <= other.pages[0] <= bundle.pages[1]
        )
        if title >= RULES["auto_title"] and volume is True and journal is True and inside:
            return "merge", "rule L: a record of several letters and a letter it contains"
        if title >= RULES["review_title"]:
            return "review", f"uncertain: a record of several letters; title {title:.2f}"
        return None
    if "reply" in kinds and title >= RULES["linked_title"]:
        return "linked", "a reply or comment and the item it answers: linked, not merged"
    return None


def deduplicate(
    papers: Sequence[Paper],
    *,
    auto_only: bool = False,
    reviewed: Mapping[tuple[int, int], Decision] | None = None,
    merge_corrections: bool | None = None,
    alt_titles: Mapping[int, Sequence[str]] | None = None,
) -> DedupResult:
    """Find duplicate groups among ``papers`` (indices are positions in ``papers``).

    ``alt_titles`` maps a record's index to its other recorded titles (a translated
    title): compared too, by the similarity and by the title veto.

    ``reviewed`` maps a pair ``(a, b)`` (a < b) to the reviewer's decision (``merge`` or
    ``distinct``), which overrides the automatic one; with ``auto_only`` reviewer
    decisions are ignored (automatic decisions only; review pairs are listed, not merged).
    ``merge_corrections`` (default ``RULES["merge_corrections"]``) merges a correction
    notice with the article it corrects (rule E) instead of sending the pair to review.
    """
    corrections = (
        bool(RULES["merge_corrections"]) if merge_corrections is None else merge_corrections
    )
    reviewed = {} if auto_only else dict(reviewed or {})
    n = len(papers)
    pairs: list[Pair] = []
    all_keys = [identity_keys(p) for p in papers]
    stage1 = group_keys(all_keys)
    conflicts: list[Conflict] = []
    reps: list[list[int]] = []
    seen_conflicts: set[tuple[str, str, tuple[str, ...], tuple[int, ...]]] = set()
    for g in stage1:
        for c in g.details:  # a split component's conflict is on each of its parts
            ck = (c.kind, c.namespace, c.values, c.members)
            if ck not in seen_conflicts:
                seen_conflicts.add(ck)
                conflicts.append(c)
        if len(g.members) > 1:
            check = check_shared(papers, g.members, all_keys)
            if check.conflict is not None:
                conflicts.append(check.conflict)
                reps.extend([i] for i in g.members)
                continue
            reps.append(list(g.members))
            root = g.members[0]
            for other in g.members[1:]:
                shared = sorted(
                    ns
                    for ns, vals in all_keys[root].items()
                    if ns != "record" and vals & all_keys[other].get(ns, set())
                )
                pairs.append(
                    Pair(root, other, 1.0, {"identifiers": shared}, "merge", "shared identifier", 1)
                )
        else:
            reps.append(list(g.members))
    alts = alt_titles or {}
    feats = [_cached_features(members, papers, all_keys, alts) for members in reps]

    blocks: dict[str, list[int]] = {}
    for gi, f in enumerate(feats):
        for block_key in f.blocks:
            blocks.setdefault(block_key, []).append(gi)
    skipped = 0
    seen: set[tuple[int, int]] = set()
    candidates: list[tuple[int, int]] = []
    for block in blocks.values():
        if len(block) < 2:
            continue
        if len(block) > RULES["max_block"]:
            skipped += 1
            continue
        for i, x in enumerate(block):
            for y in block[i + 1 :]:
                cand = (x, y) if x < y else (y, x)
                if cand not in seen:
                    seen.add(cand)
                    candidates.append(cand)

    uf = UF(len(reps))
    # each group's identifiers, copied to the sets: a merge adds to its group's copy and never
    # to the features of the record group that stands for it (the chain check re-scores those)
    group_ids = [{ns: set(vals) for ns, vals in f.ids.items()} for f in feats]
    scope = PAIR_CACHE.scope((corrections, *sorted(RULES.items())))

    def judge_pair(a: _Features, b: _Features) -> _Judged:
        return _judge(a, b, corrections)

    stage2: list[tuple[float, int, int, Decision, str, dict[str, Any]]] = []
    for x, y in candidates:
        judged = PAIR_CACHE.get(feats[x], feats[y], scope, judge_pair)
        if judged is None:
            continue
        score, ev, (decision, reason) = judged
        stage2.append((score, x, y, decision, reason, dict(ev)))  # a copy: the cache's stays
    stage2.sort(key=lambda t: (-t[0], t[1], t[2]))
    counts = {
        "records": n,
        "stage1_groups": len(reps),
        "stage1_merged": n - len(reps),
        "shared_id_conflicts": sum(c.kind == "shared" for c in conflicts),
    }
    merged2 = review = linked = distinct = chained = 0
    links: list[tuple[int, int, Relation, str]] = []

    def judge(u: int, v: int) -> tuple[Decision | None, dict[str, Any]]:
        _, ev = _score(feats[u], feats[v])
        decided = _decide(feats[u], feats[v], ev, corrections)
        return (decided[0] if decided else None), ev

    chains = Chains(judge, reps, stage2, reviewed, int(RULES["max_chain_pairs"]))
    for score, x, y, decision, reason, ev in stage2:
        a, b = reps[x][0], reps[y][0]
        key = (min(a, b), max(a, b))
        if key in reviewed:
            decision = reviewed[key]
            reason = f"reviewer: {decision} (was: {reason})"
        if decision == "merge":
            rx, ry = uf.find(x), uf.find(y)
            if rx != ry:
                clash = _id_clash(group_ids[rx], group_ids[ry])
                chain = None if clash else chains.check(x, y, rx, ry, key in reviewed)
                if clash:
                    decision, reason = (
                        "review",
                        "merge would join conflicting identifiers: " + ", ".join(clash),
                    )
                elif chain is not None:
                    decision, reason = "review", chain[0]
                    ev = {**ev, "chain": chain[1]}
                    chained += 1
                else:
                    uf.p[ry] = rx
                    chains.join(rx, ry)
                    for ns, vals in group_ids[ry].items():
                        group_ids[rx].setdefault(ns, set()).update(vals)
        merged2 += decision == "merge"
        review += decision == "review"
        linked += decision == "linked"
        distinct += decision == "distinct"
        if rel := ev.get("version"):
            first, second = (a, b) if rel["primary"] == "a" else (b, a)
            links.append((first, second, rel["relation"], reason))
            ev = {**ev, "version": rel["relation"]}
        pairs.append(Pair(key[0], key[1], score, ev, decision, reason, 2))

    final: dict[int, list[int]] = {}
    for gi, rep_members in enumerate(reps):
        final.setdefault(uf.find(gi), []).extend(rep_members)
    groups = sorted((sorted(g) for g in final.values()), key=lambda g: g[0])
    group_of = [0] * n
    for k, members in enumerate(groups):
        for i in members:
            group_of[i] = k
    versions = versions_of(links, group_of)
    counts.update(
        {
            "candidate_pairs": len(candidates),
            "stage2_merge_pairs": merged2,
            "review_pairs": review,
            "linked_pairs": linked,
            "distinct_pairs": distinct,
            "skipped_blocks": skipped,
            "chain_reviews": chained,
            "groups": len(groups),
            "removable": sum(len(g) - 1 for g in groups),
            "vetoed_pairs": sum(bool(p.evidence.get("vetoes")) for p in pairs),
            "versions": len(versions),
        }
    )
    return DedupResult(groups, pairs, counts, conflicts=conflicts, versions=versions)
