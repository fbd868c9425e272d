"""The one rule that places a Study's source in a round (``StudyRounds.round_of``): a whole
search by its own round, anything else by the round in force when it joined, to the second."""

from __future__ import annotations

from litdesk.core.runs import study_rounds


def test_a_source_belongs_to_the_round_in_force_when_it_joined() -> None:
    plan = study_rounds(
        [
            ("first", 0, "2026-01-01T09:00:00+00:00"),
            ("u1", 1, "2026-03-01T09:00:00.250+00:00"),
            ("edit", 1, "2026-03-02T09:00:00+00:00"),  # added in round 1: not its start
            ("u2", 2, "2026-05-01T09:00:00"),  # naive: UTC
        ]
    )
    assert plan.updates == (1, 2)
    assert [at.isoformat() for _, at in plan.began] == [
        "2026-03-01T09:00:00+00:00",
        "2026-05-01T09:00:00+00:00",
    ]
    # a whole search keeps its own round, whenever the question is asked
    assert plan.round_of("run", "edit", "2025-01-01T00:00:00+00:00") == 1
    assert plan.round_of("run", "first", "2027-01-01T00:00:00+00:00") == 0
    # kept runs, imports, papers: by when they joined
    assert plan.round_of("run", "kept", "2026-02-01T00:00:00+00:00") == 0
    assert plan.round_of("import", "i", "2026-03-01T09:00:00+00:00") == 1  # that second
    assert plan.round_of("paper", "p", "2026-03-01T08:59:59+00:00") == 0
    assert plan.round_of("paper", "p", "2026-04-30T23:00:00-12:00") == 2  # 1 May 11:00 UTC
    assert study_rounds([]).round_of("import", "i", "2026-03-01T09:00:00") == 0
