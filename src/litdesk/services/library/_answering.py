"""What becomes of an answer after retrieval: the abstention that says the library does not
seem to answer (near misses listed as such), and the day's protocol of questions (a file,
or with a shared object store one document per answer)."""

from __future__ import annotations

import logging
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from litdesk.adapters.objects import ObjectStoreError
from litdesk.core.library import abstain_threshold, abstention_text
from litdesk.services.assist import AllowanceRefused

from ._results import Answer, Hit, Retrieval
from ._shelf import Shelf

__all__ = ["abstained", "near_misses", "not_answered", "read_protocol", "with_note",
           "write_protocol"]  # fmt: skip

log = logging.getLogger(__name__)

_REFS: Final = "\n\nReferences:\n"
#: the heading of one answer in a protocol (its time, then the question)
_ENTRY: Final = re.compile(r"^## \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", re.MULTILINE)


def abstained(found: Retrieval, warnings: list[str], model: str, embedder: str) -> Answer:
    """The answer that says the library does not seem to answer, near misses listed
    (``embedder``: the index's embedder name, whose thresholds were applied)."""
    near = found.hits[:3]
    best = found.support or 0.0
    # the threshold the retrieval applied (the stricter one when words were missing)
    below = found.threshold if found.threshold is not None else abstain_threshold(embedder)
    text = abstention_text(
        [(h.file, h.page, h.text) for h in near], best, below=below, missing=found.uncovered
    )
    warnings.append(f"abstained: the best excerpt's support {best:.2f} is under the threshold")
    if found.uncovered:
        warnings.append(
            "abstained: no excerpt contains the question's distinctive words "
            + ", ".join(found.uncovered[:5])
        )
    misses = near_misses(near)
    return Answer(
        found.question, text, False, [], warnings, model, found.scope, found.variant,
        abstained=True, near_misses=misses,
    )  # fmt: skip


def near_misses(hits: list[Hit]) -> list[dict[str, Any]]:
    """Excerpts listed apart from an answer (not cited): file, page, text, title, link."""
    return [
        {
            "file": h.file,
            "page": h.page,
            "text": h.text,
            "title": h.title,
            "support": None if h.support is None else round(h.support, 3),
            "link": h.path.resolve().as_uri() + f"#page={h.page}",
        }
        for h in hits
    ]


def with_note(answer: str, note: str) -> str:
    """``answer`` with ``note`` as its last paragraph before the references."""
    if not note:
        return answer
    body, sep, refs = answer.partition(_REFS)
    return f"{body.rstrip()}\n\n{note}{sep}{refs}"


def write_protocol(shelf: Shelf, root: Path, answer: Answer, whole: bool) -> None:
    """Add the answer to the day's protocol: appended to ``<root>/protocols/<date>.md``, or
    with a shared object store one document per answer, ``library/protocols/<date>/<time>-
    <random>.md`` (no two hosts append to one file), read together by :func:`read_protocol`."""
    folder = root / "protocols"
    now = datetime.now(UTC)
    scope = "whole library" if whole else ", ".join(answer.scope)
    lines = [
        f"## {now.isoformat(timespec='seconds')} — {answer.question}",
        "",
        f"- scope: {scope}",
        f"- model: {answer.model}",
        f"- grounded: {'yes' if answer.grounded else 'no'}",
    ]
    if answer.variant:
        lines.append(f"- English variant: {answer.variant}")
    lines += ["", answer.answer, ""]
    for w in answer.warnings:
        lines.append(f"> warning: {w}")
    text = "\n".join(lines).rstrip() + "\n\n"
    day = now.date().isoformat()
    if shelf.shared:
        shelf.catch_up(folder)  # the day files kept here before the store was shared
        stamp = now.strftime("%H%M%S.%f")
        try:
            shelf.write_text(folder / day / f"{stamp}-{uuid.uuid4().hex[:8]}.md", text)
        except ObjectStoreError as exc:  # the answer is kept; it says what it lacks
            log.warning("a protocol entry was not stored: %s", exc.message)
            answer.warnings.append(f"this answer is not in the protocol: {exc.message}")
        return
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{day}.md").open("a", encoding="utf-8") as fh:
        fh.write(text)


def read_protocol(shelf: Shelf, root: Path, day: str) -> tuple[str, int]:
    """The protocol of ``day`` (``YYYY-MM-DD``) whichever host answered, and how many answers
    it holds: the day's file, then (a shared object store) the answers stored one by one,
    in time order."""
    folder = root / "protocols"
    if not shelf.shared:
        path = folder / f"{day}.md"
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        return text, len(_ENTRY.findall(text))
    shelf.catch_up(folder)
    parts = [shelf.read_text(folder / f"{day}.md") or ""]
    parts += [shelf.read_text(folder / day / name) or "" for name in shelf.names(folder / day)]
    text = "".join(parts)
    return text, len(_ENTRY.findall(text))


def not_answered(exc: AllowanceRefused) -> AllowanceRefused:
    """The refusal of a question's model call, saying what became of the question."""
    wait = exc.details.get("retry_after")
    if isinstance(wait, int) and wait < 3_600:
        when = f"in {wait} s"
    else:
        when = "after 00:00 UTC" if exc.code.endswith("daily_limit") else "in a moment"
    return AllowanceRefused(
        f"{exc.message}: the question was not answered (no extractive answer in its place) "
        f"and nothing was recorded; ask it again {when}",
        code=exc.code,
        retry_after=wait,
    )
