"""The deduplication area's requests, each validated once (here) for every face: the CLI
builds them from its options, the web from its form or JSON body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from litdesk._errors import InputError
from litdesk.adapters.formats import EXPORT_FORMATS

__all__ = ["DecideRequest", "DedupInputError", "DedupRequest", "ExplainRequest", "Verdict"]

#: A reviewer's decision on a pair of the review queue.
Verdict = Literal["merge", "distinct"]
_VERDICTS: Final = ("merge", "distinct")
#: The longest record reference ``--explain`` takes (an id, ``FILE#N`` or ``N``).
_MAX_REF: Final = 1_000


class DedupInputError(InputError):
    """A deduplication request is malformed (the message says which part; ``code`` names it)."""


@dataclass(frozen=True, slots=True)
class DedupRequest:
    """What to deduplicate and what to do with the result (``litdesk dedup``'s options).

    ``files`` are read together; ``study`` keeps the reviewer decisions in that Study's
    history (in the app's store) and reuses the ones in force. Without ``files`` the
    Study itself is deduplicated: its records (everything its imports and searches
    identified) become its working set. Files named with a Study are deduplicated
    alongside its decisions, not added to it (``litdesk import --study`` adds them)."""

    files: tuple[str, ...]
    format: str | None = None
    auto_only: bool = False
    decisions_file: str | None = None  # JSON reviewer decisions: read before, written after
    study: str | None = None  # keep decisions in this Study's history and reuse them
    out: str | None = None  # write one merged record per study here …
    to: str = "ris"  # … in this format
    merge_corrections: bool = False
    force: bool = False  # replace an existing ``out`` file (never a folder, FIFO or device)
    versions_out: str | None = None  # write the "version of" links here as CSV

    def __post_init__(self) -> None:
        if not self.files and not (self.study or "").strip():
            raise DedupInputError(
                "name at least one export file to deduplicate, or a Study (--study)",
                code="no_files",
            )
        if not self.files and (self.decisions_file or self.format):
            raise DedupInputError(
                "--decisions and --format apply to files; a Study keeps its decisions in "
                "its history",
                code="files_only",
            )
        if self.to.strip().lower() not in EXPORT_FORMATS:
            raise DedupInputError(
                f"cannot write {self.to[:40]!r} (choose one of {', '.join(EXPORT_FORMATS)})",
                code="unsupported",
            )
        if self.study is not None and not self.study.strip():
            raise DedupInputError("a Study is named by its id or name", code="study")


@dataclass(frozen=True, slots=True)
class ExplainRequest:
    """Why records ``a`` and ``b`` of ``files`` did or did not merge (``--explain A B``:
    a record's own id, ``FILE#N`` or ``N``, 0-based); nothing is written."""

    files: tuple[str, ...]
    a: str
    b: str
    format: str | None = None
    auto_only: bool = False
    decisions_file: str | None = None
    merge_corrections: bool = False

    def __post_init__(self) -> None:
        if not self.files:
            raise DedupInputError("name at least one export file to deduplicate", code="no_files")
        for ref in (self.a, self.b):
            if not ref.strip() or len(ref) > _MAX_REF:
                raise DedupInputError(
                    "--explain names two records (an id, FILE#N or N)", code="record_ref"
                )


@dataclass(frozen=True, slots=True)
class DecideRequest:
    """A reviewer's ``merge`` or ``distinct`` on pair ``pair`` of run ``run_id``'s review
    queue, in ``study``."""

    study: str
    run_id: str
    pair: int
    decision: str

    def __post_init__(self) -> None:
        if self.decision not in _VERDICTS:
            raise DedupInputError("a decision is merge or distinct", code="decision")
        if self.pair < 0:
            raise DedupInputError(
                "a pair is named by its place in the queue (0 or more)", code="pair"
            )
        if not self.study.strip() or not self.run_id.strip():
            raise DedupInputError("a decision names its Study and its run", code="decision_ref")
