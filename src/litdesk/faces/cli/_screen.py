"""CLI: ``litdesk screen simulate FILE --labels COLUMN`` — replay a labelled set as ASReview's
``simulate`` does and report the order, WSS@95 and recall@10%."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from litdesk._errors import InputError, NotFoundError

from ._output import command, console, emit_json

if TYPE_CHECKING:  # imported when a command runs (fast start)
    from litdesk.core.imports import RecordTrace
    from litdesk.core.screening import ScreeningRecord, Simulation

__all__ = ["register", "screen_app"]

#: the ``litdesk screen`` group (other modules add their commands to it before it is used)
screen_app = typer.Typer(
    help="Screening: a Study's records one at a time, prioritised by active learning; "
    "its simulation.",
    no_args_is_help=True,
)

#: extras columns read as subject terms beside the mapped keywords (normalised names)
_TERM_COLUMNS = ("mesh_terms", "mesh terms", "mesh", "mesh headings", "keywords_plus")


def _norm(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).casefold()


def _extra(record: RecordTrace, column: str) -> list[str] | None:
    extras = record.extras or {}
    if column in extras:
        return list(extras[column])
    wanted = _norm(column)
    for key, values in extras.items():
        if _norm(key) == wanted:
            return list(values)
    return None


def _label(record: RecordTrace, column: str, row: int) -> bool:
    values = _extra(record, column) or []  # an empty cell is not kept
    value = values[0].strip() if values else ""
    if value not in {"0", "1"}:
        raise InputError(
            f"label {value!r} of record {row} (column {column!r}) is not 0 or 1",
            code="bad_label",
        )
    return value == "1"


def _screening_record(record: RecordTrace) -> ScreeningRecord:
    from litdesk.core.screening import ScreeningRecord

    terms = list(record.paper.keywords)
    wanted = {_norm(c) for c in _TERM_COLUMNS}
    for key, values in (record.extras or {}).items():
        if _norm(key) in wanted:
            for value in values:
                terms += [t for t in value.split(";") if t.strip()]
    return ScreeningRecord.of(record.paper.title, record.paper.abstract, terms)


def read_labelled(path: Path, column: str) -> tuple[list[ScreeningRecord], list[bool]]:
    """Records (title, abstract, keywords + MeSH) and 0/1 labels of a labelled file, in the
    file's order, read with litdesk's own format readers."""
    from litdesk.services.imports import import_files

    batch = import_files([path])
    if batch.refused:
        refused = batch.refused[0]
        if refused.exit_code == NotFoundError.exit_code:
            raise NotFoundError(f"{path}: {refused.message}", code=refused.code)
        raise InputError(f"{path}: {refused.message}", code=refused.code)
    records = [r for trace in batch.imports for r in trace.records]
    if not records:
        raise InputError(f"{path} holds no records", code="no_records")
    if all(_extra(r, column) is None for r in records):
        raise InputError(
            f"{path} has no label column {column!r} (labels are read from a CSV/TSV column "
            "that is not one of the record fields)",
            code="no_label_column",
        )
    labels = [_label(r, column, i) for i, r in enumerate(records)]
    if not any(labels):
        raise InputError(
            f"no included record (label 1) in column {column!r} of {path}", code="no_included"
        )
    return [_screening_record(r) for r in records], labels


def _summary(path: Path, sim: Simulation) -> None:
    from rich.table import Table

    table = Table(title=f"screening simulation of {path.name} (seed {sim.seed})")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("records", f"{len(sim.order):,}")
    table.add_row("included", f"{sum(sim.labels):,}")
    table.add_row("priors (shown first)", ", ".join(str(i) for i in sim.priors) or "none")
    table.add_row("WSS@95", f"{sim.wss95:.3f}")
    table.add_row("recall after 10% screened", f"{sim.recall_at_10:.3f}")
    table.add_row("model retrained", f"{sim.retrains:,} times")
    table.add_row("model", str(sim.model["name"]))
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add the ``litdesk screen`` group (``simulate``; the others add their commands)."""
    screen = screen_app
    app.add_typer(screen, name="screen")

    @screen.command("simulate")
    @command
    def simulate_cmd(
        file: Annotated[
            Path, typer.Argument(help="A labelled file (CSV/TSV with a label column).")
        ],
        labels: Annotated[
            str, typer.Option("--labels", help="The column holding 1 (included) or 0 (excluded).")
        ],
        seed: Annotated[int, typer.Option("--seed", help="Draws the priors; seeds the model.")] = 1,
        prior_included: Annotated[
            int, typer.Option("--prior-included", min=0, help="Included records known first.")
        ] = 1,
        prior_excluded: Annotated[
            int, typer.Option("--prior-excluded", min=0, help="Excluded records known first.")
        ] = 1,
        as_json: Annotated[
            bool, typer.Option("--json", help="Order, WSS@95, recall@10% and model as JSON.")
        ] = False,
        model: Annotated[
            str | None,
            typer.Option(
                "--model",
                help="litdesk-svm-2 or litdesk-handover (embeds every record with USE-m3 first: "
                "about 20-50 s of CPU per 1,000 records; and 3-4x the SVM's time per retrain). "
                "Default: the model a Study's screening uses by default.",
            ),
        ] = None,
    ) -> None:
        """Replay a labelled file: priors drawn by the seed, then the model's order until every
        record is labelled; WSS@95 and recall@10% of that order."""
        from litdesk.core.screening import (
            DEFAULT_MODEL,
            MODEL_NAMES,
            build_features,
            named_model,
            simulate,
        )

        name = model or DEFAULT_MODEL
        if name not in MODEL_NAMES:
            raise InputError(
                f"--model is one of {', '.join(MODEL_NAMES)}, not {name!r}", code="arguments"
            )
        config = named_model(name)
        records, truth = read_labelled(file, labels)
        embedding = None
        if config.features.embedding:
            from litdesk.services.models import Models

            from ._context import settings

            # the sentence encoder a Study's embedding job uses (no store is opened)
            models = Models(settings())
            try:
                embedding = models.sentence_embedder().embed([r.text for r in records])
            finally:
                models.close()
        sim = simulate(
            build_features(records, config.features, embedding=embedding),
            truth,
            seed=seed,
            prior_included=prior_included,
            prior_excluded=prior_excluded,
            config=config,
        )
        if as_json:
            emit_json(sim.to_dict())
        else:
            _summary(file, sim)
