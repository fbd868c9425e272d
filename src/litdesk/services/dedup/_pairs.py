"""The review pairs of a Study's deduplication run, described for the web page: both
records' fields aligned with whether they agree, the rule that fired, the evidence and
notes ``litdesk dedup --explain`` shows, and whether a merge may be offered at all
(records with conflicting identifiers, trial registry numbers included, never are)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from litdesk.core.dedup import Pair, explain_pair, registry_ids
from litdesk.core.fusion import NAMESPACES, identity_keys
from litdesk.core.records import Paper

from ._service import DedupReport, RecordRef

__all__ = ["MAX_ABSTRACT", "ReviewPair", "id_conflicts", "review_pairs"]

MAX_ABSTRACT: Final = 1_200
_JOIN_CLASH: Final = "merge would join conflicting identifiers"
_ID_LABELS: Final = {
    "doi": "DOI",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "openalex": "OpenAlex",
    "arxiv": "arXiv",
}


def record_ids(paper: Paper) -> dict[str, set[str]]:
    """The identifiers stage 2 compares: the identity graph's and trial registry numbers."""
    out = {ns: set(v) for ns, v in identity_keys(paper).items() if ns in NAMESPACES and v}
    for ns, vals in registry_ids(paper.title, paper.journal, paper.abstract).items():
        out.setdefault(ns, set()).update(vals)
    return out


def id_conflicts(a: Paper, b: Paper) -> list[str]:
    """Namespaces where both records have identifiers and none is shared."""
    ia, ib = record_ids(a), record_ids(b)
    return sorted(ns for ns in ia.keys() & ib.keys() if not ia[ns] & ib[ns])


@dataclass(frozen=True, slots=True)
class ReviewPair:
    """One pair of the review queue (``no``: its place in the queue)."""

    no: int
    pair: Pair
    a: RecordRef
    b: RecordRef
    keys: tuple[str, str]  # the two records' digests, sorted: the history's key
    body: dict[str, Any]

    @property
    def mergeable(self) -> bool:
        return bool(self.body["mergeable"])


def ref_label(ref: RecordRef) -> str:
    """A record named for people: ``psycinfo_64.ris, record 12`` (its file's name, no
    folders, and its 1-based place there); a search's record by the search's label."""
    where = ref.file if ref.file.startswith("search ") else ref.file.rsplit("/", 1)[-1]
    return f"{where or ref.file}, record {ref.index + 1}"


def _ref(ref: RecordRef, paper: Paper) -> dict[str, Any]:
    return ref.to_dict() | {
        "title": paper.title[:300],
        "label": ref_label(ref),
        "lines": list(ref.lines),
    }


def _agree(value: object) -> str:
    if value is True:
        return "agree"
    return "differ" if value is False else "unknown"


def _fields(pa: Paper, pb: Paper, ev: dict[str, Any]) -> list[dict[str, Any]]:
    def row(name: str, label: str, a: object, b: object, agree: str, note: str = "") -> None:
        rows.append({"name": name, "label": label, "a": a, "b": b, "agree": agree, "note": note})

    rows: list[dict[str, Any]] = []
    title = float(ev.get("title", 0.0))
    row(
        "title",
        "Title",
        pa.title,
        pb.title,
        "agree" if title >= 0.95 else ("differ" if title < 0.85 else "unknown"),
        f"similarity {title:.2f}",
    )
    row(
        "authors", "Authors", "; ".join(pa.authors), "; ".join(pb.authors), _agree(ev.get("author"))
    )
    gap = ev.get("year_gap")
    row(
        "year",
        "Year",
        pa.year,
        pb.year,
        "unknown" if gap is None else ("agree" if gap == 0 else "differ"),
        "" if gap in (None, 0) else f"{gap} years apart",
    )
    row("journal", "Journal", pa.journal, pb.journal, _agree(ev.get("journal")))
    row("volume", "Volume", pa.volume, pb.volume, _agree(ev.get("volume")))
    row("issue", "Issue", pa.issue, pb.issue, _agree(ev.get("issue")))
    row("pages", "Pages", pa.pages, pb.pages, _agree(ev.get("page")))
    ia, ib = record_ids(pa), record_ids(pb)
    for ns in sorted(ia.keys() | ib.keys()):
        va, vb = ia.get(ns, set()), ib.get(ns, set())
        agree = "unknown" if not va or not vb else ("agree" if va & vb else "differ")
        label = _ID_LABELS.get(ns, f"Trial registry ({ns.upper()})")
        row(ns, label, ", ".join(sorted(va)), ", ".join(sorted(vb)), agree)
    types_a, types_b = ", ".join(pa.publication_types), ", ".join(pb.publication_types)
    if types_a or types_b or "kinds" in ev:
        kinds = ev.get("kinds")
        row(
            "type",
            "Type",
            types_a,
            types_b,
            "differ" if kinds else "unknown",
            f"read as: {', '.join(map(str, kinds))}" if kinds else "",
        )
    abstract_a = (pa.abstract or "")[:MAX_ABSTRACT]
    abstract_b = (pb.abstract or "")[:MAX_ABSTRACT]
    if abstract_a or abstract_b:
        row("abstract", "Abstract", abstract_a, abstract_b, "unknown")
    return rows


def _original_rule(reason: str) -> str:
    """The rule before a reviewer's decision (``reviewer: merge (was: …)``)."""
    if reason.startswith("reviewer: ") and "(was: " in reason and reason.endswith(")"):
        return reason.split("(was: ", 1)[1][:-1]
    return reason


def review_pairs(report: DedupReport, *, limit: int) -> tuple[list[ReviewPair], int]:
    """The pairs waiting for a reviewer or decided by one (at most ``limit``), with the
    number of such pairs in the run."""
    queue = [
        p
        for p in report.result.pairs
        if p.decision == "review" or p.reason.startswith("reviewer: ")
    ]
    out: list[ReviewPair] = []
    for no, p in enumerate(queue[:limit]):
        ra, rb = report.refs[p.a], report.refs[p.b]
        pa, pb = report.papers[p.a], report.papers[p.b]
        why = explain_pair(report.papers, report.result, p.a, p.b)
        clash = id_conflicts(pa, pb)
        rule = _original_rule(p.reason)
        refusal = None
        if clash:
            refusal = "conflicting identifiers: " + ", ".join(clash) + " (never merged)"
        elif rule.startswith(_JOIN_CLASH):
            refusal = rule + " (never merged)"
        body = {
            "no": no,
            "a": _ref(ra, pa),
            "b": _ref(rb, pb),
            "score": round(p.score, 4),
            "stage": p.stage,
            "rule": rule,
            "evidence": dict(p.evidence),
            "fields": _fields(pa, pb, dict(p.evidence)),
            "conflicts": [c.message for c in why.conflicts],
            "notes": list(why.notes),
            "via": [report.refs[i].to_dict() for i in why.via],
            "mergeable": refusal is None,
            "not_mergeable": refusal,
        }
        keys = (ra.digest, rb.digest) if ra.digest <= rb.digest else (rb.digest, ra.digest)
        out.append(ReviewPair(no, p, ra, rb, keys, body))
    return out, len(queue)
