"""Abstention: when no excerpt is close enough, the answer says the library does not seem
to answer (extractive and model modes alike) and lists the nearest excerpts as near misses."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.llm import ChatReply, ChatRequest
from litdesk.core.library import ABSTAIN_BELOW, abstain_threshold, uncovered_threshold
from litdesk.services.app import app_library

CAMERAS = (
    "Monitoring River Water Levels with Time-Lapse Cameras. "
    + "Water level was measured with time-lapse cameras mounted on two bridges. "
    "Each camera took one image every ten minutes and a staff gauge was visible in the frame. " * 6
)
WHEAT = (
    "Heat Stress in Winter Wheat. "
    + "Post-anthesis heat stress reduced grain yield and kernel weight in wheat plants. "
    "Chlorophyll fluorescence was measured with a modulated fluorometer. " * 6
)
OFF_TOPIC = "Which football club won the 1998 UEFA Champions League final?"


@pytest.fixture
def settings(tmp_settings: Settings, tmp_path: Path, make_pdf: Callable[..., Path]) -> Settings:
    root = tmp_path / "pdfs"
    make_pdf(root / "cameras.pdf", [CAMERAS, "The cameras agreed with the gauge. " * 20])
    make_pdf(root / "wheat.pdf", [WHEAT, "Yield fell by a third under heat stress. " * 20])
    return tmp_settings.model_copy(update={"library_dirs": [root], "database_url": None})


@dataclass
class Scripted:
    """A scripted model backend (the live LLM is the edge we cannot reach here)."""

    answers: list[str]
    requests: list[ChatRequest] = field(default_factory=list)
    name: str = "scripted"
    model: str = "scripted-1"
    is_model: bool = True

    def complete(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        if request.system.startswith("Translate"):
            return ChatReply(request.user, "end", self.model)
        return ChatReply(self.answers.pop(0), "end", self.model)


def test_answerable_question_is_supported(settings: Settings, wordllama: WordLlamaEmbedder) -> None:
    lib = app_library(settings, embedder=wordllama, workers=1)
    found = lib.retrieve("How often did the time-lapse cameras take an image?", top_k=3)
    assert found.support is not None and found.support >= ABSTAIN_BELOW
    assert not found.abstained
    answer = lib.ask("How often did the time-lapse cameras take an image?", top_k=3)
    assert answer.grounded and not answer.abstained
    assert {c["file"] for c in answer.citations} == {"cameras.pdf"}


def test_extractive_answer_abstains_with_near_misses(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = app_library(settings, embedder=wordllama, workers=1)
    found = lib.retrieve(OFF_TOPIC, top_k=4)
    assert found.hits and found.abstained
    assert found.support is not None and found.support < ABSTAIN_BELOW
    answer = lib.ask(OFF_TOPIC, top_k=4)
    assert answer.abstained and not answer.grounded and answer.citations == []
    assert answer.answer.startswith("The library does not seem to answer this question")
    assert "near misses, not an answer" in answer.answer
    assert 1 <= len(answer.near_misses) <= 3
    first = answer.near_misses[0]
    assert first["file"] in {"cameras.pdf", "wheat.pdf"}
    assert f"- {first['file']}, p. {first['page']}:" in answer.answer
    assert first["link"].endswith(f"#page={first['page']}")
    assert any(w.startswith("abstained:") for w in answer.warnings)
    d = json.loads(json.dumps(answer.to_dict()))
    assert d["abstained"] is True and d["near_misses"][0]["file"] == first["file"]
    proto = next((settings.resolved_data_dir() / "library" / "protocols").glob("*.md"))
    assert "grounded: no" in proto.read_text(encoding="utf-8")


def test_model_mode_abstains_without_asking_the_model(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    model = Scripted(["Real Madrid won [1]."])
    lib = app_library(settings, embedder=wordllama, workers=1, backend=model)
    answer = lib.ask(OFF_TOPIC, top_k=4)
    assert answer.abstained and not answer.grounded
    assert "Real Madrid" not in answer.answer
    assert [r for r in model.requests if not r.system.startswith("Translate")] == []
    assert answer.model == "scripted-1"


def test_empty_library_has_no_support(
    tmp_settings: Settings, tmp_path: Path, wordllama: WordLlamaEmbedder
) -> None:
    (tmp_path / "empty").mkdir()
    s = tmp_settings.model_copy(update={"library_dirs": [tmp_path / "empty"], "database_url": None})
    found = app_library(s, embedder=wordllama, workers=1).retrieve(OFF_TOPIC)
    assert found.hits == [] and found.support is None and not found.abstained


def test_rerank_by_support_keeps_a_valid_ranking(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    lib = app_library(settings, embedder=wordllama, workers=1)
    question = "How often did the time-lapse cameras take an image?"
    plain = lib.retrieve(question, top_k=4)
    reranked = lib.retrieve(question, top_k=4, params=replace(lib.params, rerank_depth=10))
    assert len(reranked.hits) == len(plain.hits) == 4
    assert reranked.hits[0].file == "cameras.pdf"
    scores = [h.score for h in reranked.hits]
    assert scores == sorted(scores, reverse=True)
    assert len({(h.file, h.page, h.text) for h in reranked.hits}) == 4
    assert reranked.support is not None and not reranked.abstained


def test_missing_distinctive_words_make_the_threshold_stricter(
    tmp_settings: Settings,
    tmp_path: Path,
    make_pdf: Callable[..., Path],
    wordllama: WordLlamaEmbedder,
) -> None:
    root = tmp_path / "trial"
    words = ["grain", "kernel", "tiller", "spike", "leaf", "root", "canopy", "flower"]
    pages = [
        f"In plot {n} heat stress cut the {w} mass of the wheat plants by {n + 10} percent, "
        f"and the {w} count fell by {n + 3} after {n + 2} hot days in the greenhouse. "
        f"Section {n} ends with the {w} data for the stressed wheat."
        for n, w in enumerate(words)
    ]
    make_pdf(root / "wheat.pdf", pages + ["Seeds were vernalised at four degrees for six weeks."])
    make_pdf(root / "cameras.pdf", [CAMERAS])
    s = tmp_settings.model_copy(update={"library_dirs": [root], "database_url": None})
    lib = app_library(s, embedder=wordllama, workers=1)
    answerable = lib.retrieve("How long were the seeds vernalised?", top_k=3)
    assert answerable.uncovered == [] and not answerable.abstained
    assert answerable.threshold == abstain_threshold(lib.embedder_id)
    # on topic (wheat, heat stress) but about a drug no page names
    question = "Which furosemide dose was given to the wheat plants under heat stress?"
    found = lib.retrieve(question, top_k=3)
    assert "furosemide" in found.uncovered
    assert found.support is not None
    name = lib.embedder_id
    strict = max(abstain_threshold(name), uncovered_threshold(name))
    assert found.threshold == strict and found.abstained == (found.support < strict)
    answer = lib.ask(question, top_k=3)
    assert answer.abstained == found.abstained
    if answer.abstained:
        assert "no excerpt contains furosemide" in answer.answer
        assert any("distinctive words furosemide" in w for w in answer.warnings)
    # model mode: the same judgement, and the model is not asked when it abstains
    model = Scripted(["Forty milligrams [1]."])
    with_model = app_library(s, embedder=wordllama, workers=1, backend=model).ask(question, top_k=3)
    assert with_model.abstained == found.abstained
    asked = [r for r in model.requests if not r.system.startswith("Translate")]
    assert (asked == []) == found.abstained


def test_answer_over_an_off_topic_library_shows_no_padding(
    settings: Settings, wordllama: WordLlamaEmbedder
) -> None:
    """Issue 32: the answer does not fill its top_k with excerpts of the off-topic paper;
    they are near misses, listed apart, and the answer says how many it rests on."""
    lib = app_library(settings, embedder=wordllama, workers=1)
    question = "How often did the time-lapse cameras take an image?"
    found = lib.retrieve(question, top_k=4)
    assert len(found.hits) == 4 and {h.file for h in found.hits} == {"cameras.pdf", "wheat.pdf"}
    assert all(h.support is not None for h in found.hits)
    needed = lib.relevance_needed(found)
    assert found.threshold is not None and needed <= found.threshold
    off = [h for h in found.hits if h.file == "wheat.pdf"]
    assert off and all(h.support is not None and h.support < needed for h in off)
    answer = lib.ask(question, top_k=4)
    assert answer.grounded and not answer.abstained
    assert {c["file"] for c in answer.citations} == {"cameras.pdf"}
    assert "wheat" not in answer.answer.lower()
    assert {n["file"] for n in answer.near_misses} >= {"wheat.pdf"}
    shown = 4 - len(answer.near_misses)
    assert f"Only {shown} of the 4 excerpts retrieved" in answer.answer
    assert all(n["support"] < needed for n in answer.near_misses)
    # the references are numbered once each and only for what is shown
    refs = answer.answer.partition("References:\n")[2].splitlines()
    assert [r.split("]")[0] + "]" for r in refs] == [f"[{i}]" for i in range(1, len(refs) + 1)]
    assert len(refs) <= shown
