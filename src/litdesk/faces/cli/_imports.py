"""CLI commands of the imports area: ``litdesk import`` and ``litdesk convert``."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from .._words import num, plural
from ._output import command, console, emit_json, err_console

if TYPE_CHECKING:  # imported when a command runs (fast start)
    from litdesk.core.imports import ImportTrace
    from litdesk.services.imports import ImportBatch

#: Files at least this large get a progress bar.
PROGRESS_BYTES = 4 * 1024 * 1024


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:  # missing or unreadable: the import reports it as a refusal
        return 0


@contextmanager
def _progress(paths: list[str]) -> Iterator[object]:
    """A progress hook over the files' bytes when any file is big; else a no-op hook."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    sizes = {p: _size(p) for p in paths}
    if max(sizes.values(), default=0) < PROGRESS_BYTES:
        yield None
        return
    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    with bar:
        task = bar.add_task("importing", total=sum(sizes.values()))
        done = {"bytes": 0}

        def hook(path: str, size: int) -> None:
            bar.update(task, completed=done["bytes"], description=f"reading {Path(path).name}")
            done["bytes"] += max(size, 0)

        yield hook
        bar.update(task, completed=done["bytes"])


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while the CLI reads files.

    An import builds a few objects per record that all stay alive (a Paper and a trace),
    so the collector's full passes — each walking every one of them — cost about a fifth of
    a large import and find nothing to free. Pausing it is a process-wide decision, which
    ``litdesk import``/``convert`` can make for their own one-shot process (the library's
    ``loads`` leaves the collector alone). Restored afterwards only if it was enabled.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _report_refused(batch: ImportBatch) -> None:
    for item in batch.refused:
        err_console.print(
            f"litdesk: {item.path}: {item.message} ({item.code})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _summary(batch: ImportBatch) -> None:
    from rich.table import Table

    from litdesk.faces._words import plural

    from ._tables import cards, line, print_fitting

    table = Table(
        title=f"{plural(batch.record_count, 'record')} from {plural(len(batch.imports), 'file')}"
    )
    for name in ("file", "format", "encoding", "records", "notices"):
        table.add_column(name, justify="right" if name in ("records", "notices") else "left")
    rows = []
    for trace in batch.imports:
        notes = len(trace.notices) + sum(len(r.notices) for r in trace.records)
        name = Path(trace.source.path).name
        rows.append((name, trace, len(trace.records), notes))
        table.add_row(
            Text(name),  # a file name is never rich markup
            trace.source.format,
            trace.source.encoding,
            num(len(trace.records)),
            num(notes),
        )

    def as_cards() -> Table:
        return cards(
            (
                (
                    str(n),
                    [
                        line(name),
                        line(
                            f"{trace.source.format}, {trace.source.encoding}",
                            plural(count, "record", "records"),
                            plural(notes, "notice", "notices"),
                        ),
                    ],
                )
                for n, (name, trace, count, notes) in enumerate(rows, start=1)
            )
        )

    print_fitting(console, table, as_cards)


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _nothing_saved(paths: list[str], *, format: str | None) -> None:
    """After ``litdesk import`` without ``--study``: say, in plain words on stderr, that the
    files were only read, and the two ways to keep the records of those read (``paths``)."""
    import shlex

    files = " ".join(shlex.quote(p) for p in paths)
    given = f" --format {shlex.quote(format)}" if format else ""
    for text in (
        "Nothing was saved: the files were only read and checked.",
        "To save the records into a Study (created if it does not exist):",
        f"  litdesk import {files}{given} --study NAME",
        "To write them to a file instead (RIS, BibTeX, CSL-JSON or CSV):",
        f"  litdesk convert {files}{given} --to ris --output FILE",
    ):
        err_console.print(text, markup=False, highlight=False, soft_wrap=True)


#: notices shown one by one under a file's line (more: their count, and ``--json``)
_SHOWN_NOTICES = 3


def _notice_lines(trace: ImportTrace) -> list[str]:
    """A saved file's notices for ``import --study``: their count by kind, then the first
    few with their lines (the rest are in ``--json`` and the Study's import trace)."""
    notices = [*trace.notices, *(n for r in trace.records for n in r.notices)]
    if not notices:
        return []
    kinds: dict[str, int] = {}
    for n in notices:
        kinds[n.kind] = kinds.get(n.kind, 0) + 1
    out = ["  notices: " + ", ".join(f"{k} {num(v)}" for k, v in sorted(kinds.items()))]
    for n in notices[:_SHOWN_NOTICES]:
        where = f"line {n.line}: " if n.line is not None else ""
        out.append(f"    {where}{n.message}")
    if len(notices) > _SHOWN_NOTICES:
        out.append(f"    … {num(len(notices) - _SHOWN_NOTICES)} more (--json lists every one)")
    return out


def _into_study(
    paths: list[str],
    *,
    study: str,
    format: str | None,
    strict_ids: bool,
    as_json: bool,
    source: str | None = None,
    source_kind: str | None = None,
) -> None:
    """``litdesk import FILE… --study NAME``: save the read files' records into the Study
    (created when missing), each file's trace kept; refused files reported beside them."""
    from litdesk.services.studies import ImportRequest

    from ._context import sync_app

    request = ImportRequest(
        study,
        paths=tuple(paths),
        format=format,
        strict_ids=strict_ids,
        create=True,
        refuse_all=True,
        source_name=source,
        source_kind=source_kind,
    )
    with _progress(paths) as hook, collector_paused(), sync_app() as app:
        outcome = app.studies.import_files(request, owner=app.owner, on_path=hook)  # type: ignore[arg-type]
    assert outcome.result is not None and outcome.result.done is not None  # paths: in the call
    done = outcome.result.done
    if as_json:
        emit_json(done.to_dict())
    else:
        if done.study_created:
            _say(f"Study {done.study_name!r} created ({done.study_id})")
        for trace, f in zip(outcome.result.traces, done.files, strict=True):
            _say(
                f"Saved {plural(f.saved, 'record')} from {f.path} into Study {done.study_name!r} "
                f"({plural(f.created, 'new paper')}); import {f.import_id}"
            )
            for r in f.refused:
                _say(f"  refused record at lines {r['lines'][0]}-{r['lines'][1]}: {r['reason']}")
            for line in _notice_lines(trace):
                _say(line)
            if f.source is not None:  # the PRISMA 2020 line its records count on
                said = " (read from the file)" if f.source.origin == "file" else ""
                _say(f"  counted as {f.source.name} ({f.source.kind}){said}")
                if f.source.origin == "file" and trace.source.tool and f.source.kind == "other":
                    _say(
                        f"  (a {trace.source.tool} export names no database it was searched "
                        f"in: name it with --source, or later with litdesk study "
                        f"import-source {done.study_name!r} {f.import_id} --source NAME)"
                    )
            else:  # PRISMA lists it under the file's name until its database is named
                _say(
                    "  counted as a database named after the file (the file names none): "
                    "name it with --source, or later with litdesk study import-source "
                    f"{done.study_name!r} {f.import_id} --source NAME"
                )
        if len(done.files) > 1 or done.refused:
            saved = sum(f.saved for f in done.files)
            created = sum(f.created for f in done.files)
            refused = f"; {plural(len(done.refused), 'file')} refused" if done.refused else ""
            _say(
                f"In all: {plural(saved, 'record')} from {plural(len(done.files), 'file')} "
                f"saved into Study {done.study_name!r} ({plural(created, 'new paper')}){refused}"
            )
    for item in done.refused:
        err_console.print(
            f"litdesk: {item.path}: {item.message} ({item.code}); not saved",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if done.refused:
        raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    """Add this area's commands to ``app``."""

    @app.command("import")
    @command
    def import_cmd(
        files: Annotated[list[Path], typer.Argument(help="Export files to read.")],
        format: Annotated[
            str | None,
            typer.Option("--format", "-f", help="Read as this format (default: detect)."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the traces as JSON.")] = False,
        strict_ids: Annotated[
            bool,
            typer.Option(
                "--strict-ids",
                help="Refuse a file whose records repeat a source record id "
                "(default: keep them, with notices).",
            ),
        ] = False,
        study: Annotated[
            str | None,
            typer.Option(
                "--study",
                help="Save the records into this Study (created when it does not exist), "
                "keeping each file's import trace.",
            ),
        ] = None,
        source: Annotated[
            str | None,
            typer.Option(
                "--source",
                help="With --study: the source PRISMA counts the files' records under "
                "(e.g. Embase; default: the database the file names, else its file name).",
            ),
        ] = None,
        source_kind: Annotated[
            str | None,
            typer.Option(
                "--source-kind",
                help="With --study: database, register or other (citation searching, "
                "websites…; default: a register when the name says so, else a database).",
            ),
        ] = None,
    ) -> None:
        """Read export files (RIS, MEDLINE, Web of Science, BibTeX, CSV, …) into traces;
        with --study, save their records into a Study.

        A refused file is reported on stderr (exit status 2); the others are still read
        (and saved). When every file is refused nothing is saved.
        """
        from litdesk.services.imports import import_files

        paths = [str(f) for f in files]
        if study is not None:
            _into_study(
                paths,
                study=study,
                format=format,
                strict_ids=strict_ids,
                as_json=as_json,
                source=source,
                source_kind=source_kind,
            )
            return
        if source is not None or source_kind is not None:
            from litdesk._errors import InputError

            raise InputError(
                "--source and --source-kind name where a Study's records came from: "
                "add --study NAME",
                code="source_without_study",
            )
        with _progress(paths) as hook, collector_paused():
            batch = import_files(paths, format=format, on_file=hook, strict_ids=strict_ids)  # type: ignore[arg-type]
        if as_json:
            emit_json(batch.to_dict())
        elif batch.imports:  # every file refused: the refusals say it (no empty table)
            _summary(batch)
        _report_refused(batch)
        if not as_json and batch.imports:  # a refused file: its refusal says enough
            _nothing_saved([trace.source.path for trace in batch.imports], format=format)
        if batch.refused:
            raise typer.Exit(2)

    @app.command("convert")
    @command
    def convert_cmd(
        files: Annotated[list[Path], typer.Argument(help="Export files to read.")],
        to: Annotated[str, typer.Option("--to", help="ris, bibtex, csljson or csv.")],
        output: Annotated[
            Path | None, typer.Option("--output", "-o", help="Write here (default: stdout).")
        ] = None,
        format: Annotated[
            str | None,
            typer.Option("--format", "-f", help="Read as this format (default: detect)."),
        ] = None,
        force: Annotated[bool, typer.Option("--force", help="Overwrite OUTPUT.")] = False,
    ) -> None:
        """Convert export files to RIS, BibTeX, CSL-JSON or CSV (refused files: exit 2)."""
        from litdesk.services.files import check_output, write_output
        from litdesk.services.imports import convert_files

        paths = [str(f) for f in files]
        if output is not None:
            check_output(output, force=force)  # a bad -o fails before the work
        with _progress(paths) as hook, collector_paused():
            text, batch = convert_files(paths, to=to, format=format, on_file=hook)  # type: ignore[arg-type]
        if output is None:
            typer.echo(text, nl=False)
        else:
            write_output(output, text, force=force)
            err_console.print(
                f"{plural(batch.record_count, 'record')} from {plural(len(batch.imports), 'file')} "
                "written to "
                f"{output} as {to}",
                markup=False,
                highlight=False,
            )
        _report_refused(batch)
        if batch.refused:
            raise typer.Exit(2)
