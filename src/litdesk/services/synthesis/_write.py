"""Write a synthesis report as one HTML file: cited pages rendered once, passages boxed."""

from __future__ import annotations

from pathlib import Path

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

from ._build import SynthesisReport

__all__ = ["check_target", "report_html", "target_path", "write_report"]


def report_html(
    report: SynthesisReport, *, dpi: int = DEFAULT_DPI, max_bytes: int = MAX_REPORT_BYTES
) -> str:
    """The report's HTML: each cited page once, each label with its highlight boxes."""
    lab = report.labelled
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
        href = key[0].resolve().as_uri() + f"#page={c.page}"
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
) -> Path:
    """Write the HTML (atomically; an existing file only with ``force``)."""
    if output is None:
        default_dir.mkdir(parents=True, exist_ok=True)  # litdesk's own folder
    path = target_path(report, output, default_dir)
    check_output(path, force=force)  # before the pages are rendered
    write_output(path, report_html(report, dpi=dpi), force=force)
    return path
