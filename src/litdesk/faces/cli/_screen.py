"""CLI: ``litdesk screen simulate FILE --labels COLUMN`` — replay a labelled set as ASReview's
``simulate`` does and report the order, WSS@95 and recall@10%."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from litdesk._errors import InputError

from ._labelled import read_labelled
from ._output import command, console, emit_json

if TYPE_CHECKING:  # imported when a command runs (fast start)
    from litdesk.core.screening import Simulation

__all__ = ["read_labelled", "register", "screen_app"]

#: the ``litdesk screen`` group (other modules add their commands to it before it is used)
screen_app = typer.Typer(
    help="Screening: a Study's records one at a time, prioritised by active learning; "
    "its simulation.",
    no_args_is_help=True,
)


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
            Path,
            typer.Argument(
                help="A labelled file: CSV/TSV (comma, tab or semicolon) with a label column, "
                "or RIS as ASReview exports it. Every data row (RIS: every record, TY to ER) "
                "is one record, its position (0-based) in the file's order. Excel: save the "
                "sheet as CSV."
            ),
        ],
        labels: Annotated[
            str,
            typer.Option(
                "--labels",
                help="The label column (case and spaces ignored). Included: 1, 1.0, true, yes, "
                "y, included, include; excluded: 0, 0.0, false, no, n, excluded, exclude. Every "
                "record needs one (empty, -1 or NA is an error naming the rows). RIS: N1 (or "
                "included) reads ASReview's ASReview_relevant/irrelevant notes.",
            ),
        ],
        seed: Annotated[
            int,
            typer.Option("--seed", help="Draws the priors; seeds the model (0 to 4294967295)."),
        ] = 1,
        # counts checked by simulate itself, not by the option parser: a typed error, so that
        # --json prints its document (the option parser's usage error prints none)
        prior_included: Annotated[
            int, typer.Option("--prior-included", help="Included records known first (≥ 0).")
        ] = 1,
        prior_excluded: Annotated[
            int, typer.Option("--prior-excluded", help="Excluded records known first (≥ 0).")
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
