"""Build a synthesis report over PDFs of the library.

Every unit is answered through the citation gate from the library's retrieval, so
each citation in the report is a verified excerpt (file, page, passage):

* questions: per paper (``per-paper``, the default), once across the papers
  (``cross-paper``, the generation model), or ``both``;
* summaries: per paper, the six fixed facets (two-language queries, 3 excerpts each);
  without a model these are *extracts* (the best sentences of the best excerpts);
* synthesis (two or more papers, a model only): agreement, differences, open points.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from litdesk._errors import InputError, LitdeskError
from litdesk.adapters.llm import ChatBackend, ChatRequest, Thinking, make_backend
from litdesk.adapters.store import LOCAL_OWNER, pdf_records
from litdesk.core.library import (
    Excerpt,
    PromptMessages,
    extractive_answer,
    relevance_note,
    run_gate,
    split_relevant,
)
from litdesk.core.pdfmeta import PdfMeta
from litdesk.core.report import (
    FACET_QUERIES,
    FACETS,
    SYNTHESIS_SECTIONS,
    LabelledReport,
    ReportPaper,
    ReportUnit,
    SeenSentences,
    UnitExcerpt,
    assign_labels,
    body_text,
    mostly_matter,
    report_file_name,
)
from litdesk.core.words import plural
from litdesk.services.assist import REPORT_BUILD_FEATURE
from litdesk.services.library import Hit, Library, Retrieval, hash_files
from litdesk.services.pdfmeta import read_pdf_meta

__all__ = [
    "DetailMode",
    "ReportCancelled",
    "ReportInputError",
    "SummaryMode",
    "SynthesisReport",
    "UnitProgress",
    "build_report",
    "split_sections",
]

SummaryMode = Literal["none", "bullets", "prose"]
DetailMode = Literal["per-paper", "cross-paper", "both"]
MAX_QUESTIONS: Final = 20
MAX_PAPERS: Final = 26
MAX_QUESTION_CHARS: Final = 1_000
FACET_EXCERPTS: Final = 3
#: A summary facet looks at this many times its excerpts to find enough from the body.
FACET_POOL: Final = 3
_BODY_REFS = "\n\nReferences:\n"


def _heading(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?im)^[#*_ \t]*(?:{name})[*_ \t]*(?::[*_ \t]*|$\n?)")


_HEADINGS: Final = {
    "agreement": _heading("agreements?"),
    "differences": _heading("differences?"),
    "open_points": _heading("open points?|open questions?"),
}


#: ``(units done, units in all, the unit starting)``; ``False`` stops the build
UnitProgress = Callable[[int, int, str | None], bool]


class ReportCancelled(LitdeskError):
    """The build was stopped through its progress callback."""

    default_code = "cancelled"


class ReportInputError(InputError):
    """The report request is not usable (no questions and no summary, too many, …)."""

    default_code = "report_input"


@dataclass
class SynthesisReport:
    """The labelled report with what it needs to be written and disclosed."""

    labelled: LabelledReport
    questions: list[str]
    summary: SummaryMode
    detail_mode: DetailMode
    language: str | None
    model: str
    generation_model: str
    created: datetime
    paths: dict[str, Path]
    synthesis_note: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: each paper's library file name → the SHA-256 of its PDF (the workspace viewer's key)
    shas: dict[str, str] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return report_file_name(self.labelled.papers, self.questions, on=self.created.date())

    def to_dict(self) -> dict[str, Any]:
        lab = self.labelled
        units = []
        for unit, parts in zip(lab.units, lab.parts, strict=True):
            units.append(
                {
                    "kind": unit.kind,
                    "key": unit.key,
                    "paper": unit.paper,
                    "letter": lab.letters.get(unit.paper) if unit.paper else None,
                    "question_index": unit.question_index,
                    "grounded": unit.grounded,
                    "extractive": unit.extractive,
                    "text": unit.text,
                    "parts": [p.to_dict() for p in parts],
                    "warnings": list(unit.warnings),
                }
            )
        return {
            "file_name": self.file_name,
            "created": self.created.isoformat(timespec="seconds"),
            "papers": [
                {
                    "letter": lab.letters[p.file] or None,
                    "file": p.file,
                    "title": p.title,
                    "authors": list(p.authors),
                    "doi": p.doi,
                    "arxiv": p.arxiv,
                    "link": p.link,
                }
                for p in lab.papers
            ],
            "questions": self.questions,
            "summary": self.summary,
            "detail_mode": self.detail_mode,
            "language": self.language,
            "model": self.model,
            "generation_model": self.generation_model,
            "units": units,
            "passages": [p.to_dict() for p in lab.passages],
            "synthesis_note": self.synthesis_note,
            "warnings": self.warnings,
        }


def _body(answer: str) -> str:
    head, sep, _ = answer.rpartition(_BODY_REFS)
    return head if sep else answer


def _excerpts(hits: Sequence[Hit], *, body: bool = False) -> list[Excerpt]:
    """The gate's numbered excerpts; ``body``: without their front and back matter."""
    return [
        Excerpt(i, h.file, h.page, body_text(h.text) if body else h.text, h.title, h.doi, h.arxiv)
        for i, h in enumerate(hits, start=1)
    ]


def _unit_excerpts(hits: Sequence[Hit]) -> tuple[UnitExcerpt, ...]:
    return tuple(
        UnitExcerpt(i, h.file, h.page, h.text, h.rank) for i, h in enumerate(hits, start=1)
    )


class _Runner:
    def __init__(
        self,
        lib: Library,
        chat: ChatBackend,
        generation: ChatBackend,
        language: str | None,
        thinking: Thinking,
        top_k: int,
        generation_thinking: Thinking | None = None,
    ) -> None:
        self.lib, self.chat, self.generation = lib, chat, generation
        self.language, self.thinking, self.top_k = language, thinking, top_k
        #: the generation role's level (cross-paper answers, synthesis); unset: ``thinking``
        self.generation_thinking: Thinking = generation_thinking or thinking
        self.warnings: list[str] = []
        self.lead_question: str | None = None  # sets the prose language when none is given
        self.seen: dict[str, SeenSentences] = {}  # a paper's summary repeats no sentence

    def _instruction(self, backend: ChatBackend, text: str, own_question: bool) -> str:
        if not backend.is_model:
            return text
        if self.language:
            return f"{text}\n(Write the answer in {self.language}.)"
        if not own_question and self.lead_question:
            return (
                f"{text}\n(Write the answer in the language of this question: "
                f'"{self.lead_question[:200]}")'
            )
        return text

    def gate(
        self,
        backend: ChatBackend,
        question: str,
        hits: Sequence[Hit],
        *,
        own: bool = True,
        body: bool = False,
        generation: bool = False,
    ) -> tuple[str, bool, tuple[str, ...]]:
        excerpts = _excerpts(hits, body=body)
        asked = self._instruction(backend, question, own)
        level = self.generation_thinking if generation else self.thinking

        def ask(prompt: PromptMessages) -> str:
            request = ChatRequest(
                prompt.system, prompt.user, tuple(excerpts), thinking=level,
                question=question,
            )  # fmt: skip
            return backend.complete(request).text

        gated = run_gate(asked, excerpts, ask)
        return _body(gated.answer) if gated.cited else gated.answer, gated.grounded, gated.warnings

    def found(
        self, question: str, papers: list[str], top_k: int, variant: str | None = None
    ) -> Retrieval:
        found = self.lib.retrieve(question, papers=papers, top_k=top_k, variant=variant)
        for w in found.warnings:
            if w not in self.warnings:
                self.warnings.append(w)
        return found

    def retrieve(
        self, question: str, papers: list[str], top_k: int, variant: str | None = None
    ) -> list[Hit]:
        return self.found(question, papers, top_k, variant).hits

    def question(
        self, index: int, question: str, papers: list[str], paper: str | None
    ) -> ReportUnit:
        backend = self.chat if paper else self.generation
        found = self.found(question, [paper] if paper else papers, self.top_k)
        # a cross-paper unit shows only the excerpts relevant enough and abstains like the
        # chat (core.library.split_relevant); a per-paper unit's excerpts are all of its
        # paper, and the support is judged with that one paper's word rarities (a word
        # the whole paper uses weighs nothing), so it keeps its excerpts
        split = split_relevant(
            [None if paper else h.support for h in found.hits], self.lib.relevance_needed(found)
        )
        abstain = found.abstained and not paper
        hits = [] if abstain else [found.hits[i] for i in split.shown]
        if not hits:
            best = found.support or 0.0
            return ReportUnit(
                "question", question,
                "The library does not seem to answer this question: no excerpt is close "
                f"enough (best support {best:.2f}, needed {split.needed:.2f}).",
                (), paper, index, False, not backend.is_model,
                (f"abstained: {plural(len(found.hits), 'excerpt')} below the needed relevance",),
            )  # fmt: skip
        text, grounded, warnings = self.gate(backend, question, hits, generation=not paper)
        note = relevance_note(split)
        return ReportUnit(
            "question", question, text, _unit_excerpts(hits), paper, index, grounded,
            not backend.is_model, (*warnings, note) if note else warnings,
        )  # fmt: skip

    def facet(self, facet: str, paper: str, mode: SummaryMode) -> ReportUnit:
        english, german = FACET_QUERIES[facet]
        want = min(FACET_EXCERPTS, self.top_k)
        # from the body: excerpts mostly of front or back matter are passed over, and the
        # matter sentences of the others are not shown to the summary (core.report._matter)
        found = self.retrieve(english, [paper], min(20, want * FACET_POOL), german)
        hits = [h for h in found if not mostly_matter(h.text)][:want]
        seen = self.seen.setdefault(paper, SeenSentences())
        if not self.chat.is_model:
            if not hits:
                return ReportUnit(
                    "summary", facet, "No excerpt found.", (), paper, None, False, True
                )
            text = seen.fresh(
                extractive_answer(
                    english, _excerpts(hits, body=True), sentences=1 if mode == "bullets" else 2
                )
            )
            return ReportUnit(
                "summary", facet, text, _unit_excerpts(hits), paper, None, bool(text), True
            )
        shape = (
            "as one to three short bullet points ('- ' lines)"
            if mode == "bullets"
            else "in one to three sentences of prose"
        )
        ask = f"{english} Summarise this for the paper {shape}."
        text, grounded, warnings = self.gate(self.chat, ask, hits, own=False, body=True)
        text = seen.fresh(text)
        return ReportUnit(
            "summary", facet, text, _unit_excerpts(hits), paper, None, grounded, False, warnings
        )

    def synthesis(self, questions: list[str], papers: list[str]) -> list[ReportUnit]:
        query = " ".join(questions) if questions else FACET_QUERIES["results"][0]
        top_k = min(20, max(self.top_k, 2 * len(papers)))
        hits = self.retrieve(query[:MAX_QUESTION_CHARS], papers, top_k)
        ask = (
            "Compare the papers behind these excerpts. Write exactly three sections, each "
            "starting on its own line with its heading: 'Agreement:', 'Differences:' and "
            "'Open points:' (keep these English headings in any language). Cite after every "
            "statement." + (f" Focus on: {query}" if questions else "")
        )
        text, grounded, warnings = self.gate(self.generation, ask, hits, own=False, generation=True)
        sections = split_sections(text)
        excerpts = _unit_excerpts(hits)
        return [
            ReportUnit(
                "synthesis",
                key,
                sections.get(key, "").strip() or "(no statement)",
                excerpts,
                None,
                None,
                grounded and bool(sections.get(key)),
                False,
                warnings,
            )  # fmt: skip
            for key in SYNTHESIS_SECTIONS
        ]


def split_sections(text: str) -> dict[str, str]:
    """Agreement / differences / open points from a synthesis answer (by headings)."""
    found: list[tuple[int, int, str]] = []
    for key, rx in _HEADINGS.items():
        m = rx.search(text)
        if m is not None:
            found.append((m.start(), m.end(), key))
    found.sort()
    out: dict[str, str] = {}
    for i, (_, end, key) in enumerate(found):
        stop = found[i + 1][0] if i + 1 < len(found) else len(text)
        out[key] = text[end:stop].strip()
    if not found and text.strip():
        out["agreement"] = text.strip()
    return out


def _clean_questions(questions: Sequence[str]) -> list[str]:
    out = [" ".join(q.split()) for q in questions if q.strip()]
    if len(out) > MAX_QUESTIONS:
        raise ReportInputError(f"at most {MAX_QUESTIONS} questions", code="too_many_questions")
    for q in out:
        if len(q) > MAX_QUESTION_CHARS:
            raise ReportInputError(
                f"a question is over {MAX_QUESTION_CHARS} characters", code="question_too_long"
            )
    return list(dict.fromkeys(out))


def _read_offline(path: Path) -> PdfMeta | None:
    """The PDF's description read from its first pages (``None``: unreadable)."""
    try:
        return read_pdf_meta(path)
    except LitdeskError:
        return None


def _paper_record(
    lib: Library, names: list[str], owner: str = LOCAL_OWNER
) -> tuple[list[ReportPaper], dict[str, Path], dict[str, str]]:
    """Each PDF's paper: the description ``owner`` confirmed, else the verified (adopted)
    record, else what its first pages say (marked with its confidence)."""
    files = lib.corpus().select(names)
    hashes = hash_files(lib.catalogue, files)
    meta = lib.catalogue.metadata()
    with lib.catalogue.store.read() as conn:
        mine = pdf_records.pdf_records_of(conn, owner, list(hashes.values()))
    papers: list[ReportPaper] = []
    paths: dict[str, Path] = {}
    shas: dict[str, str] = {}
    for f in files:
        sha = hashes.get(f.path, "")
        m = meta.get(sha, {})
        authors = tuple(str(a) for a in m.get("authors") or () if str(a).strip())
        title, doi, arxiv = m.get("title") or None, m.get("doi") or None, m.get("arxiv_id") or None
        confidence = None
        rec = mine.get(sha)
        if rec is not None and rec.confirmed_at is not None and rec.title:  # a person's
            title, authors, doi, arxiv = rec.title, rec.authors, rec.doi, rec.arxiv
        elif not title:  # no verified record: what the first pages say, marked as such
            read = _read_offline(f.path)
            if read is not None and read.title is not None:
                title, confidence = read.title.value, read.title.confidence
                if read.authors is not None:
                    authors = read.authors.value
                    confidence = min(confidence, read.authors.confidence)
                doi = doi or (read.doi.value if read.doi else None)
                arxiv = arxiv or (read.arxiv.value if read.arxiv else None)
        papers.append(
            ReportPaper(
                f.name, title, authors, doi, arxiv, f.path.resolve().as_uri(), confidence,
            )
        )  # fmt: skip
        paths[f.name] = f.path
        if sha:
            shas[f.name] = sha
    return papers, paths, shas


def build_report(
    lib: Library,
    *,
    papers: list[str] | None,
    questions: Sequence[str],
    summary: SummaryMode = "none",
    synthesis: bool = False,
    language: str | None = None,
    detail_mode: DetailMode = "per-paper",
    top_k: int = 8,
    thinking: Thinking | None = None,
    generation_thinking: Thinking | None = None,
    generation: ChatBackend | None = None,
    preset_letters: dict[str, str] | None = None,
    progress: UnitProgress | None = None,
    reuse: Mapping[str, ReportUnit] | None = None,
    owner: str = LOCAL_OWNER,
) -> SynthesisReport:
    """Answer the questions, summarise and synthesise over ``papers`` (``None``: all).

    ``reuse`` maps a question to an answer already given over the same papers (a paper
    chat's round): where a question is answered once for the scope (``cross-paper``,
    ``both``, or one paper) that answer is taken as it is instead of asking again.
    ``both`` answers each question across the papers and then for each paper.

    ``thinking`` is the level of every call (default the ``thinking`` setting);
    ``generation_thinking`` that of the generation role's calls — cross-paper answers and
    the synthesis (default the ``generation_thinking`` setting, else ``thinking``).

    ``progress(done, total, current)`` is called before each unit and once at the end;
    when it returns ``False`` the build stops with :class:`ReportCancelled`.

    Each model call is reserved from ``owner``'s report-build allowance; a refusal stops
    the build with :class:`AllowanceRefused` (the calls made so far count)."""
    if summary not in ("none", "bullets", "prose"):
        raise ReportInputError("--summary takes none, bullets or prose", code="summary")
    if detail_mode not in ("per-paper", "cross-paper", "both"):
        raise ReportInputError(
            "--detail-mode takes per-paper, cross-paper or both", code="detail_mode"
        )
    qs = _clean_questions(questions)
    if not qs and summary == "none" and not synthesis:
        raise ReportInputError(
            "nothing to report: give --questions, --summary bullets|prose or --synthesis",
            code="empty_report",
        )
    language = " ".join(language.split())[:40] if language and language.strip() else None
    chat = lib.metered(owner, REPORT_BUILD_FEATURE)
    made = None if generation is not None else _generation_backend(lib)
    other = generation or made
    gen = lib.meter(other, owner, REPORT_BUILD_FEATURE) if other is not None else chat
    try:
        level: Thinking = thinking or lib.settings.thinking  # type: ignore[assignment]
        gen_level: Thinking = (
            generation_thinking or lib.settings.generation_thinking or level  # type: ignore[assignment]
        )
        corpus = lib.corpus()
        skipped: list[str] = []
        if papers:
            known = set(corpus.names())
            skipped = [n for n in dict.fromkeys(papers) if n not in known]
            kept = [n for n in papers if n in known]
            papers = kept or papers  # none left: select() refuses with the real list
        all_files = corpus.select(papers or None)
        names = [f.name for f in all_files]
        if not names:
            raise ReportInputError(
                "the library is empty: add a folder with `litdesk library add PATH`", code="empty"
            )
        if len(names) > MAX_PAPERS:
            raise ReportInputError(
                f"a report covers at most {MAX_PAPERS} papers; choose them with --papers",
                code="too_many_papers",
            )
        lib.index(all_files)
        # a PDF without indexed text (scan, encrypted, broken) has nothing to cite: it is left out
        # of the report with its reason, instead of empty units under its name
        state = {row["file"]: row for row in lib.file_states(all_files)}
        left_out = [n for n in names if n in state and state[n]["excluded"]]
        if len(left_out) == len(names):
            raise ReportInputError(
                "no paper in the scope has indexed text: "
                + "; ".join(f"{n} ({state[n]['excluded']})" for n in left_out),
                code="no_text",
            )
        names = [n for n in names if n not in left_out]
        report_papers, paths, shas = _paper_record(lib, names, owner)
        run = _Runner(lib, chat, gen, language, level, top_k, gen_level)
        run.lead_question = qs[0] if qs else None
        units: list[ReportUnit] = []
        cross = detail_mode in ("cross-paper", "both") or len(names) == 1
        each = detail_mode in ("per-paper", "both") and len(names) > 1
        make_synthesis = synthesis and len(names) >= 2 and gen.is_model
        total = len(qs) * (int(cross) + (len(names) if each else 0)) + int(make_synthesis)
        total += len(FACETS) * len(names) if summary != "none" else 0
        done = 0

        def step(current: str | None) -> None:
            nonlocal done
            if progress is not None and not progress(done, total, current):
                raise ReportCancelled("the report build was cancelled")
            done += 1

        reused = 0
        for i, q in enumerate(qs):
            if cross:
                step(f"question {i + 1}")
                earlier = (reuse or {}).get(q)
                if earlier is not None:
                    reused += 1
                    units.append(
                        replace(
                            earlier, question_index=i, paper=None if len(names) > 1 else names[0]
                        )
                    )
                else:
                    units.append(run.question(i, q, names, None if len(names) > 1 else names[0]))
            if each:
                for n in names:
                    step(f"question {i + 1} · {n}")
                    units.append(run.question(i, q, names, n))
        note = None
        if synthesis:
            if len(names) < 2:
                note = "synthesis needs two or more papers"
            elif not gen.is_model:
                note = (
                    "synthesis needs a model: set LITDESK_LLM_BACKEND (anthropic or openai) "
                    "and a model; no synthesis was made"
                )
            else:
                step("synthesis")
                units += run.synthesis(qs, names)
        if summary != "none":
            for n in names:
                for f in FACETS:
                    step(f"summary {f} · {n}")
                    units.append(run.facet(f, n, summary))
        if progress is not None:
            progress(done, total, None)
        labelled = assign_labels(report_papers, units, preset=preset_letters)
        warnings = [f"{n} is not in the library: skipped" for n in skipped]
        warnings += [f"{n} is left out: {state[n]['excluded']}" for n in left_out]
        warnings += run.warnings
        if reused:
            warnings.append(
                f"{plural(reused, 'answer')} taken from the paper chat, not asked again"
            )
        if note:
            warnings.append(note)
        return SynthesisReport(
            labelled, qs, summary, detail_mode, language,
            chat.model if chat.is_model else "none (extractive)",
            gen.model if gen.is_model else "none (extractive)",
            datetime.now(UTC), paths, note, warnings, shas,
        )  # fmt: skip
    finally:
        close = getattr(made, "close", None)  # the generation backend made here
        if callable(close):
            close()


def _generation_backend(lib: Library) -> ChatBackend | None:
    s = lib.settings
    if not s.generation_model or s.llm_backend == "none" or s.generation_model == s.chat_model:
        return None
    return make_backend(
        s.llm_backend,
        model=s.generation_model,
        anthropic_api_key=s.anthropic_api_key.get_secret_value() if s.anthropic_api_key else None,
        openai_base_url=s.openai_base_url,
        openai_api_key=s.openai_api_key.get_secret_value() if s.openai_api_key else None,
        anthropic_base_url=s.anthropic_base_url,
    )
