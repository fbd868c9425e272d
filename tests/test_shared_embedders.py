"""The shared local embedders of the test process (``tests/conftest.py``): their use-m3 part
answers a text it embedded before from memory, with that text's own row, and is still a
``UseEmbedder`` to the code that looks for the cross-lingual part."""

from __future__ import annotations

from typing import Any

import numpy as np

from litdesk.adapters.embeddings import JointEmbedder, UseEmbedder, cross_lingual_part
from tests.conftest import _remembering_use_m3


def _counted(use: UseEmbedder) -> list[list[str]]:
    """The batches ``use`` embeds from now on (what reaches the model)."""
    seen: list[list[str]] = []
    real = use.embed

    def embed(texts: Any) -> Any:
        seen.append(list(texts))
        return real(texts)

    use.embed = embed  # type: ignore[method-assign]
    return seen


def test_a_text_embedded_before_is_answered_from_memory_with_its_own_row() -> None:
    use = UseEmbedder()
    seen = _counted(use)
    shared = _remembering_use_m3(use)
    texts = ["the staff gauge was read at dawn", "wheat under heat stress", "a third passage"]
    first = shared.embed([texts[0], texts[1], texts[0]])
    again = shared.embed([texts[1], texts[2]])
    assert seen == [[texts[0], texts[1]], [texts[2]]]  # each text embedded once
    direct = UseEmbedder().embed(texts)
    assert first.shape == (3, UseEmbedder.DIM) and again.shape == (2, UseEmbedder.DIM)
    np.testing.assert_allclose(first, direct[[0, 1, 0]], atol=1e-5)
    np.testing.assert_allclose(again, direct[[1, 2]], atol=1e-5)
    assert shared.embed([]).shape == (0, UseEmbedder.DIM)
    assert cross_lingual_part(shared) is shared  # still a UseEmbedder


def test_the_use_m3_parts_of_a_joint_embedder_remember() -> None:
    parts = [UseEmbedder(), UseEmbedder()]
    seen = [_counted(p) for p in parts]
    joint = _remembering_use_m3(JointEmbedder(parts))
    one = joint.embed(["flood water level"])
    two = joint.embed(["flood water level", "camera observation"])
    assert seen == [[["flood water level"], ["camera observation"]]] * 2
    np.testing.assert_allclose(one[0], two[0], atol=1e-6)
    assert cross_lingual_part(joint) is parts[0]
