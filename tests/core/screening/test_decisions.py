"""Screening decisions as an append-only history (supersede, undo, blind pairs, conflicts,
resolution) and agreement between reviewers (Cohen's kappa against a textbook example and
scikit-learn)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError
from litdesk.core.screening import (
    VERDICTS,
    ConflictPolicy,
    DecisionHistory,
    DecisionInputError,
    agreement,
    pair_agreement,
)

T0 = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)


def at(k: int) -> datetime:
    return T0 + timedelta(minutes=k)


def test_a_later_decision_supersedes_and_the_earlier_stays_in_the_history():
    h = DecisionHistory()
    first = h.decide("r1", "ann", "include", at=at(0), note="looks relevant")
    second = h.decide("r1", "ann", "exclude", at=at(1), reason="wrong population")
    assert len(h) == 2
    assert h.status(first.seq) == "superseded"
    assert h.status(second.seq) == "current"
    assert h.current()[("r1", "title_abstract", "ann")] == second
    assert h.entries[0].note == "looks relevant"  # nothing is edited


def test_undo_restores_the_previous_decision_and_keeps_both_visible():
    h = DecisionHistory()
    a = h.decide("r1", "ann", "include", at=at(0))
    b = h.decide("r1", "ann", "exclude", at=at(1))
    u = h.undo(b.seq, "ann", at=at(2))
    assert [h.status(e.seq) for e in h] == ["current", "undone", "undo"]
    assert h.current()[("r1", "title_abstract", "ann")] == a
    assert u.undoes == b.seq and u.verdict is None
    h.undo(a.seq, "ann", at=at(3))
    assert h.current() == {}
    with pytest.raises(DecisionInputError) as err:
        h.undo(b.seq, "ann", at=at(4))  # already undone
    assert err.value.code == "bad_undo"
    with pytest.raises(DecisionInputError):
        h.undo(99, "ann", at=at(4))


def test_undo_of_a_superseded_decision_is_refused():
    h = DecisionHistory()
    a = h.decide("r1", "ann", "include", at=at(0))
    h.decide("r1", "ann", "maybe", at=at(1))
    with pytest.raises(DecisionInputError):
        h.undo(a.seq, "ann", at=at(2))


def test_decisions_are_validated_once_with_typed_errors():
    h = DecisionHistory()
    with pytest.raises(DecisionInputError) as err:
        h.decide("r1", "ann", "exclude", stage="full_text", at=at(0))
    assert err.value.code == "reason_required"
    assert isinstance(err.value, InputError)
    with pytest.raises(DecisionInputError) as err:
        h.decide("r1", "ann", "perhaps", at=at(0))  # type: ignore[arg-type]
    assert err.value.code == "bad_verdict"
    with pytest.raises(DecisionInputError) as err:
        h.decide("r1", "ann", "include", stage="abstract", at=at(0))  # type: ignore[arg-type]
    assert err.value.code == "bad_stage"
    with pytest.raises(DecisionInputError):
        h.decide(" ", "ann", "include", at=at(0))
    with pytest.raises(DecisionInputError) as err:
        h.decide("r1", "ann", "include", at=at(0), note="x" * 20_001)
    assert err.value.code == "too_long"
    assert len(h) == 0  # nothing appended by a refused decision
    ok = h.decide("r1", "ann", "exclude", stage="full_text", reason="no comparator", at=at(0))
    assert ok.to_dict()["reason"] == "no comparator"


def test_history_is_rebuilt_from_its_entries_in_sequence():
    h = DecisionHistory()
    h.decide("r1", "ann", "include", at=at(0))
    h.undo(0, "ann", at=at(1))
    again = DecisionHistory(h.entries)
    assert [again.status(e.seq) for e in again] == ["undone", "undo"]
    with pytest.raises(DecisionInputError) as err:
        DecisionHistory(h.entries[1:])
    assert err.value.code == "bad_sequence"


def test_blind_pair_conflict_resolution_and_visibility():
    policy = ConflictPolicy(reviewers_required=2)
    h = DecisionHistory()
    h.decide("r1", "ann", "include", at=at(0))
    assert h.outcome("r1", "title_abstract", policy).status == "pending"
    h.decide("r1", "bob", "exclude", at=at(1))
    h.decide("r2", "ann", "exclude", at=at(2))
    h.decide("r2", "bob", "exclude", at=at(3))
    h.decide("r3", "ann", "maybe", at=at(4))
    h.decide("r3", "bob", "include", at=at(5))
    # blind: each sees only their own until revealed
    assert {e.reviewer for e in h.visible_to("ann")} == {"ann"}
    assert len(h.visible_to("ann", revealed=True)) == len(h)
    conflicts = h.conflicts("title_abstract", policy)
    assert [c.record for c in conflicts] == ["r1"]
    assert {d.reviewer for d in conflicts[0].decisions} == {"ann", "bob"}
    # maybe vs include is no conflict by default; settled as maybe (goes on to full text)
    r3 = h.outcome("r3", "title_abstract", policy)
    assert (r3.status, r3.verdict) == ("agreed", "maybe")
    strict = ConflictPolicy(reviewers_required=2, maybe_conflicts=True)
    assert [c.record for c in h.conflicts("title_abstract", strict)] == ["r1", "r3"]
    # a third reviewer resolves; both original decisions stay
    res = h.resolve("r1", "cat", "include", at=at(6), note="meets criteria")
    r1 = h.outcome("r1", "title_abstract", policy)
    assert (r1.status, r1.verdict, r1.resolution) == ("resolved", "include", res)
    assert len(r1.decisions) == 2
    assert h.conflicts("title_abstract", policy) == []
    assert h.final("title_abstract", policy) == {"r1": "include", "r2": "exclude", "r3": "maybe"}
    assert res in h.visible_to("ann")  # resolutions are not blind
    # undoing the resolution brings the conflict back
    h.undo(res.seq, "cat", at=at(7))
    assert [c.record for c in h.conflicts("title_abstract", policy)] == ["r1"]


def test_full_text_exclusions_with_different_reasons_conflict():
    """With ``reason_conflicts`` (a Study's full text) two exclusions giving different
    reasons are a conflict until resolved; the same reason (case and spaces aside) agrees.
    Before: agreed, counted under the first reviewer's reason whatever the second said."""
    policy = ConflictPolicy(reviewers_required=2, reason_conflicts=True)
    h = DecisionHistory()
    ft = "full_text"
    h.decide("r1", "ann", "exclude", stage=ft, at=at(0), reason="wrong population")
    h.decide("r1", "bob", "exclude", stage=ft, at=at(1), reason="not an RCT")
    h.decide("r2", "ann", "exclude", stage=ft, at=at(2), reason="Wrong  outcome")
    h.decide("r2", "bob", "exclude", stage=ft, at=at(3), reason="wrong outcome")
    h.decide("r3", "ann", "include", stage=ft, at=at(4))
    h.decide("r3", "bob", "include", stage=ft, at=at(5))
    assert [c.record for c in h.conflicts(ft, policy)] == ["r1"]
    r2 = h.outcome("r2", ft, policy)
    assert (r2.status, r2.verdict, r2.reason) == ("agreed", "exclude", "Wrong  outcome")
    assert h.outcome("r1", ft, ConflictPolicy(reviewers_required=2)).status == "agreed"
    h.resolve("r1", "cat", "exclude", stage=ft, at=at(6), reason="not an RCT")
    r1 = h.outcome("r1", ft, policy)
    assert (r1.status, r1.verdict, r1.reason) == ("resolved", "exclude", "not an RCT")


def test_single_reviewer_policy_and_stages_are_separate():
    one = ConflictPolicy()
    h = DecisionHistory()
    h.decide("r1", "ann", "include", at=at(0))
    h.decide("r1", "ann", "exclude", stage="full_text", reason="wrong design", at=at(1))
    assert h.final("title_abstract", one) == {"r1": "include"}
    ft = h.outcome("r1", "full_text", one)
    assert (ft.verdict, ft.reason) == ("exclude", "wrong design")
    assert h.outcome("r9", "full_text", one).status == "undecided"
    with pytest.raises(DecisionInputError):
        ConflictPolicy(reviewers_required=3)


# --- agreement ----------------------------------------------------------------------------


def test_kappa_of_the_textbook_example():
    # Wikipedia "Cohen's kappa", worked example: 50 proposals, yes/yes 20, yes/no 5,
    # no/yes 10, no/no 15 -> p_o = 0.7, p_e = 0.5, kappa = 0.4
    pairs = (
        [("include", "include")] * 20
        + [("include", "exclude")] * 5
        + [("exclude", "include")] * 10
        + [("exclude", "exclude")] * 15
    )
    a = pair_agreement(pairs)
    assert a.n == 50 and a.agreed == 35
    assert a.percent == pytest.approx(0.7)
    assert a.expected == pytest.approx(0.5)
    assert a.kappa == pytest.approx(0.4)
    assert a.counts["include"]["exclude"] == 5


def test_kappa_undefined_when_both_always_agree_on_one_verdict():
    a = pair_agreement([("exclude", "exclude")] * 4)
    assert a.kappa is None and a.percent == 1.0
    with pytest.raises(InputError):
        pair_agreement([])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(VERDICTS), st.sampled_from(VERDICTS)), min_size=1))
def test_kappa_matches_scikit_learn(pairs):
    from sklearn.metrics import cohen_kappa_score

    a = pair_agreement(pairs)
    if a.kappa is None:
        assert len({p for pair in pairs for p in pair}) == 1
        return
    first, second = zip(*pairs, strict=True)
    assert a.kappa == pytest.approx(cohen_kappa_score(first, second, labels=list(VERDICTS)))
    assert -1.0 <= a.kappa <= 1.0


def test_agreement_per_pair_and_stage_over_time():
    h = DecisionHistory()
    k = 0
    for record, va, vb in [
        ("r1", "include", "include"),
        ("r2", "exclude", "exclude"),
        ("r3", "include", "exclude"),
        ("r4", "exclude", "exclude"),
    ]:
        h.decide(record, "bob", vb, at=at(k))
        h.decide(record, "ann", va, at=at(k + 1))
        k += 2
    h.decide("r1", "cat", "include", at=at(20))  # cat shares one record with each
    h.decide("r1", "ann", "exclude", stage="full_text", reason="x", at=at(21))
    h.decide("r1", "bob", "exclude", stage="full_text", reason="y", at=at(22))
    pairs = agreement(h)
    keyed = {(p.first, p.second, p.stage): p for p in pairs}
    ab = keyed[("ann", "bob", "title_abstract")]
    assert ab.overall.n == 4 and ab.overall.percent == pytest.approx(0.75)
    assert ab.overall.kappa == pytest.approx(0.5)
    assert [p.n for p in ab.over_time] == [1, 2, 3, 4]
    assert ab.over_time[0].kappa is None  # one record, one verdict each: undefined
    assert ab.over_time[1].kappa == pytest.approx(1.0)
    assert ab.over_time[-1].kappa == ab.overall.kappa
    assert keyed[("ann", "cat", "title_abstract")].overall.n == 1
    assert keyed[("ann", "bob", "full_text")].overall.percent == 1.0
    assert agreement(h, stage="full_text")[0].stage == "full_text"
    assert ab.to_dict()["reviewers"] == ["ann", "bob"]
