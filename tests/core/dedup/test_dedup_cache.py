"""Each record group's dedup features are cached by their content, and each candidate
pair's judgement by its pair of cached features and the rules in force (issue 26): a run
on records equal to an earlier run's reads them back, a changed record (and its pairs) is
computed again, and the results are those of a run that computes everything afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk.core.dedup import DedupResult, deduplicate
from litdesk.core.dedup import _match as match
from litdesk.core.dedup import _shared as shared
from litdesk.core.dedup._cache import ContentCache, PairCache
from litdesk.core.records import Paper, make_paper

BASE: dict[str, object] = dict(
    authors=("Zipfel, P. F.", "Skerka, C."), year=2006, journal="Curr Opin Rheumatol",
    volume="18", pages="548-555",
)  # fmt: skip


def P(title: str, **kw: object) -> Paper:
    return make_paper(title=title, fallback_key=title + repr(sorted(kw.items())), **kw)  # type: ignore[arg-type]


def _records() -> list[Paper]:
    return [
        P("Complement dysfunction in hemolytic uremic syndrome", **BASE),
        P("Complement dysfunction in hemolytic uremic syndrome.", **BASE | {"journal": "X"}),
        P("Something else entirely about kidneys", **BASE | {"pages": "1-2", "volume": "3"}),
        P("Cerebral small vessel disease and stroke", doi="10.1000/x"),
        P("Cerebral small vessel disease and stroke.", doi="10.1000/X", pmid="5"),
    ]


def _same(a: DedupResult, b: DedupResult) -> None:
    assert a.groups == b.groups and a.counts == b.counts
    assert [(p.a, p.b, p.decision, p.reason, p.score) for p in a.pairs] == [
        (p.a, p.b, p.decision, p.reason, p.score) for p in b.pairs
    ]


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch) -> ContentCache[object, object]:
    fresh: ContentCache[object, object] = ContentCache(5_000)
    monkeypatch.setattr(match, "FEATURE_CACHE", fresh)
    monkeypatch.setattr(match, "PAIR_CACHE", PairCache(50_000))
    return fresh


def _pairs() -> PairCache[object, object]:
    return match.PAIR_CACHE  # type: ignore[return-value]


def test_equal_records_read_their_features_back(cache: ContentCache[object, object]) -> None:
    first = deduplicate(_records())
    made = cache.misses
    assert made == len(cache) == 4  # the DOI pair is one group of stage 1
    judged = _pairs().misses
    assert judged == len(_pairs()) == first.counts["candidate_pairs"] > 0
    # the same records read again (new objects, equal content): nothing computed again
    again = [Paper.model_validate(p.model_dump()) for p in _records()]
    _same(deduplicate(again), first)
    assert cache.misses == made and cache.hits == 4
    assert _pairs().misses == judged and _pairs().hits == judged


def test_a_changed_record_is_computed_again(cache: ContentCache[object, object]) -> None:
    records = _records()
    assert deduplicate(records).groups[0] == [0, 1]
    # the second record's title changed: its features are its own, and it is no duplicate
    records[1] = records[1].model_copy(update={"title": "Renal outcomes after transplant"})
    misses, judged = cache.misses, _pairs().misses
    changed = deduplicate(records)
    assert cache.misses == misses + 1
    # only pairs with the changed record are judged again (it shares a block with one)
    assert 0 < _pairs().misses - judged <= len(records) - 1
    assert [0, 1] not in changed.groups and [0] in changed.groups
    # other titles are part of the key: a record with a translated title is computed anew
    with_alt = deduplicate(records, alt_titles={2: ["Autre chose sur les reins"]})
    assert cache.misses == misses + 2
    _same(with_alt, deduplicate(records, alt_titles={2: ["Autre chose sur les reins"]}))


def test_cached_runs_answer_as_fresh_runs_on_a_labelled_set(
    cache: ContentCache[object, object], fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from litdesk.services.imports import import_files

    root = fixtures_dir / "bib" / "dedup"
    batch = import_files([root / "rathbone_haematology__records_pre_merged.csv"])
    papers = [r.paper for r in batch.imports[0].records]
    warm = deduplicate(papers)
    _same(deduplicate(papers), warm)  # every group's features read back
    assert cache.hits > 1_000 and _pairs().hits >= warm.counts["candidate_pairs"] > 1_000
    # a run with no cache at all (every value made and dropped) gives the same result
    monkeypatch.setattr(match, "FEATURE_CACHE", ContentCache(0))
    monkeypatch.setattr(match, "PAIR_CACHE", PairCache(0))
    monkeypatch.setattr(shared, "BRIEF_CACHE", ContentCache(0))
    _same(deduplicate(papers), warm)
    assert len(papers) > 1_000 and warm.removable > 100


def test_pairs_are_judged_again_under_other_rules(
    cache: ContentCache[object, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules in force are part of a pair's key: a stricter rule changes the decision
    of a pair judged before, as it does for a run that computes everything afresh."""
    records = _records()
    assert deduplicate(records).groups[0] == [0, 1]
    judged = _pairs().misses
    monkeypatch.setitem(match.RULES, "auto_title", 1.01)  # no automatic rule-A merge
    strict = deduplicate(records)
    assert _pairs().misses > judged
    assert [0, 1] not in strict.groups
    monkeypatch.setattr(match, "PAIR_CACHE", PairCache(0))
    _same(deduplicate(records), strict)
    # and the cached runs under either rule tell them apart: back to the usual rule
    monkeypatch.setitem(match.RULES, "auto_title", 0.95)
    assert deduplicate(records).groups[0] == [0, 1]


def test_a_pair_cache_hit_is_the_same_objects() -> None:
    """Keyed by identity, checked by identity: an equal but other object is a miss; the
    entry keeps its objects alive (their identities cannot be reused); past its size the
    least recently used entry goes."""
    pc: PairCache[list[int], str] = PairCache(2)
    a, b, c = [1], [2], [1]
    scope = pc.scope(("rules", 1))
    assert pc.scope(("rules", 1)) == scope != pc.scope(("rules", 2))
    assert pc.get(a, b, scope, lambda x, y: "ab") == "ab"
    assert pc.get(a, b, scope, lambda x, y: "other") == "ab"  # a hit
    assert pc.get(c, b, scope, lambda x, y: "cb") == "cb"  # equal to a, not a: a miss
    assert pc.get(b, a, scope, lambda x, y: "ba") == "ba"  # the order counts; (a, b) goes
    assert pc.get(a, b, scope, lambda x, y: "again") == "again"
    assert (pc.hits, pc.misses, len(pc)) == (1, 4, 2)
