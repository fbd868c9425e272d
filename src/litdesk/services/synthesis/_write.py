"""Write a synthesis report as one HTML file: cited pages rendered once, passages boxed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Final, Literal
from urllib.parse import quote

from litdesk.adapters.files import OutputPathError, check_output, write_output
from litdesk.adapters.pdfpages import DEFAULT_DPI, highlight, render_pages
from litdesk.adapters.report_html import (
    MAX_REPORT_BYTES,
    CitationView,
    PageView,
    ReportMeta,
    ReportTooLarge,
    render_html,
)
from litdesk.core.report import DEFAULT_LABELS

from ._build import SynthesisReport

__all__ = ["LINKS", "Links", "check_target", "report_html", "target_path", "write_report"]

#: Where a report's links to its PDFs point. ``file``: the PDF on this machine (the CLI's
#: report, opened where it was built); ``workspace``: the workspace's PDF viewer at
#: ``/library/pdf/<sha>`` (a report the server builds: its folders are never named to the
#: people who read it, and a ``file://`` link to the server's disk opens nothing for them).
Links = Literal["file", "workspace"]
LINKS: Final[tuple[Links, ...]] = ("file", "workspace")


def _href(report: SynthesisReport, file: str, page: int | None, links: Links) -> str:
    if links == "workspace":
        sha = report.shas.get(file)
        if not sha:  # not hashed (the file went away mid-build): no link rather than a path
            return ""
        return f"/library/pdf/{quote(sha)}" + (f"?page={page}" if page else "")
    uri = report.paths[file].resolve().as_uri()
    return uri + (f"#page={page}" if page else "")


def report_html(
    report: SynthesisReport,
    *,
    dpi: int = DEFAULT_DPI,
    max_bytes: int = MAX_REPORT_BYTES,
    links: Links = "file",
    labels: str = DEFAULT_LABELS,
) -> str:
    """The report's HTML: each cited page once, each label with its highlight boxes; its
    links to the PDFs as ``links`` says; its page labels in the language ``labels``."""
    lab = report.labelled
    lab = replace(
        lab, papers=[replace(p, link=_href(report, p.file, None, links)) for p in lab.papers]
    )
    wanted = {(report.paths[c.file], c.page) for c in lab.passages}
    images = render_pages(sorted(wanted), dpi=dpi)
    total = sum(len(im.data_uri) for im in images.values())
    if total > max_bytes:
        raise ReportTooLarge(
            f"the cited pages alone are {total} bytes, over the limit of {max_bytes}; "
            "cite fewer pages or lower the DPI",
            size=total,
            limit=max_bytes,
        )
    ids: dict[tuple[Path, int], str] = {}
    pages: dict[str, PageView] = {}
    for n, key in enumerate(sorted(images), start=1):
        im = images[key]
        ids[key] = f"pg-{n:04d}"
        pages[ids[key]] = PageView(ids[key], im.data_uri, im.width_px, im.height_px)
    citations: dict[str, CitationView] = {}
    notes: list[str] = []
    for c in lab.passages:
        key = (report.paths[c.file], c.page)
        im = images[key]
        hl = highlight(key[0], c.page, c.text, im.width_pt, im.height_pt)
        if not hl.found:
            notes.append(
                f"{c.label}: passage not located on the page image ({c.file}, p. {c.page})"
            )
        href = _href(report, c.file, c.page, links)
        citations[c.label] = CitationView(ids[key], href, hl.rects)
    meta = ReportMeta(
        created=report.created.isoformat(timespec="seconds"),
        model=report.model,
        generation_model=report.generation_model,
        detail_mode=report.detail_mode,
        summary_mode=report.summary,
        language=report.language,
        questions=tuple(report.questions),
        synthesis_note=report.synthesis_note,
        warnings=tuple([*report.warnings, *notes]),
        labels=labels,
    )
    return render_html(lab, meta, pages, citations, max_bytes=max_bytes)


def _names_folder(output: Path) -> bool:
    """Whether ``-o`` names a folder (not a file name ending in ``.html``/``.htm``)."""
    return output.is_dir() or output.suffix.lower() not in {".html", ".htm"}


def target_path(report: SynthesisReport, output: Path | None, default_dir: Path) -> Path:
    """``output`` as a file (a name ending in ``.html``/``.htm``), else a folder that gets
    the report's own file name."""
    if output is None:
        return default_dir / report.file_name
    if _names_folder(output):
        return output / report.file_name
    return output


def check_target(output: Path | None, *, force: bool = False) -> None:
    """Refuse a wrong ``output`` before the report is built, not after the minutes a build
    can take: a file as :func:`check_output` says; a folder must exist and be a folder
    (the report's own file name in it is known only once built). The write checks again."""
    if output is None:
        return
    if _names_folder(output):
        if not output.is_dir():
            raise OutputPathError(
                f"{output}: the folder does not exist (litdesk does not create it)"
                if not output.exists()
                else f"{output} is not a folder, nor a file name ending in .html",
                code="no_folder",
                path=str(output),
            )
        return
    check_output(output, force=force)


def write_report(
    report: SynthesisReport,
    output: Path | None,
    *,
    default_dir: Path,
    force: bool = False,
    dpi: int = DEFAULT_DPI,
    links: Links = "file",
    labels: str = DEFAULT_LABELS,
) -> Path:
    """Write the HTML (atomically; an existing file only with ``force``)."""
    if output is None:
        default_dir.mkdir(parents=True, exist_ok=True)  # litdesk's own folder
    path = target_path(report, output, default_dir)
    check_output(path, force=force)  # before the pages are rendered
    write_output(path, report_html(report, dpi=dpi, links=links, labels=labels), force=force)
    return path
