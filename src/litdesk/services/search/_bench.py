"""The search-evaluation bench: the shipped case set (``litdesk.core.runs``) run through
the app's providers — live, or replayed from a cassette (``--replay``) — each run frozen
for ``litdesk eval`` with its measured latency and provider calls."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, get_args

from litdesk._errors import InputError, LitdeskError
from litdesk.core.runs import (
    BENCHMARK_SOURCE,
    BENCHMARK_VERSION,
    BenchmarkCase,
    FrozenRun,
    benchmark_cases,
    freeze_run,
)
from litdesk.core.runs._benchmark import Split

from ._fused import make_definition

if TYPE_CHECKING:
    from ._searcher import FusedSearcher

__all__ = ["BenchArgumentError", "BenchRequest", "BenchView", "run_bench"]

SPLITS: Final = get_args(Split)


class BenchArgumentError(InputError):
    default_code = "bench_split"


@dataclass(frozen=True, slots=True)
class BenchRequest:
    """Which split of the case set to run (``development`` for tuning, ``holdout`` only
    to report), and optionally only some case ids."""

    split: Split = "development"
    only: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise BenchArgumentError(f"the split must be one of {', '.join(SPLITS)}")
        known = {c.id for c in benchmark_cases()}
        unknown = [c for c in self.only if c not in known]
        if unknown:
            raise BenchArgumentError(f"no case {unknown[0]!r} in the case set", code="bench_case")

    def cases(self) -> tuple[BenchmarkCase, ...]:
        chosen = benchmark_cases(self.split)
        return tuple(c for c in chosen if c.id in self.only) if self.only else chosen


@dataclass(frozen=True, slots=True)
class BenchView:
    runs: tuple[FrozenRun, ...]

    def to_dict(self) -> dict[str, Any]:
        """The runs file ``litdesk eval --runs`` reads."""
        return {
            "benchmark": BENCHMARK_VERSION,
            "identifier_source": BENCHMARK_SOURCE,
            "runs": [r.to_dict() for r in self.runs],
        }


async def run_bench(
    providers: FusedSearcher,
    request: BenchRequest,
    *,
    owner: str,
    timer: Callable[[], float] = time.perf_counter,
) -> BenchView:
    """Each case of ``request`` in turn, without the result cache (every run makes its own
    provider calls), frozen with its latency (ms) and provider calls; a case that fails as a whole
    (its query refused, not in the replayed cassette, the allowance spent) is kept with
    its error code (compared with the one it expects)."""
    out: list[FrozenRun] = []
    for case in request.cases():
        calls = providers.provider_calls()
        started = timer()
        error: str | None = None
        try:
            definition = make_definition(case.query, mode=case.mode)
            run = await providers.fused_search(definition, owner=owner, use_cache=False)
            frozen = freeze_run(run, case=case.id)
        except LitdeskError as exc:  # a refused query, a replay miss, a spent allowance
            error = exc.code
            frozen = FrozenRun(case.id, case.mode, "", (), ())
        out.append(
            dataclasses.replace(
                frozen,
                latency_ms=round((timer() - started) * 1000, 3),
                provider_calls=providers.provider_calls() - calls,
                split=case.split,
                error=error,
                expect_error=case.expect_error,
            )
        )
    return BenchView(tuple(out))
