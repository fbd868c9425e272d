"""Cross-lingual word bridges (pure): a question's words as a paper in another language
writes them.

A question in English about a Portuguese paper shares no word with its passages, so the
lexical ranking, the proximity re-rank and the term coverage cannot see them; only the
cross-lingual embedding can. A multilingual sentence encoder also places single words of
different languages close together ("diamond" ~ "diamante" 0.96, "authors" ~ "autores"
0.91, "access" ~ "acesso" 0.97 with use-m3). :func:`bridge_words` takes each question word
to the words of the paper's own vocabulary (:func:`paper_vocabulary`) whose vectors are
closest to it, above a threshold, so the lexical ranking can look for them too. This is
bilingual lexicon induction from one shared embedding space, restricted to the words the
paper actually uses: nothing is translated that the paper does not contain.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from ._language import guess_language

__all__ = [
    "BRIDGE_PER_WORD",
    "BRIDGE_THRESHOLD",
    "MAX_VOCABULARY",
    "HOME_SAMPLE",
    "bridge_words",
    "home_words",
    "own_language",
    "paper_vocabulary",
]

#: Cosine of a question word and a paper's word from which the paper's word is looked for
#: too. 0.85 while the paper's vocabulary held its English words (measured 0.70-0.90 alike
#: then, one word each); with those left out (:func:`home_words`, :func:`own_language`) a
#: translation's cosine is often 0.75-0.85 ("sample" ~ "muestra" 0.77, "journals" ~
#: "periódicos" 0.79, "disclose" ~ "divulgada" 0.81; bench/RESULTS.md, issue 32, ret32).
BRIDGE_THRESHOLD: Final = 0.75
#: At most this many of a paper's words stand in for one question word (its counterpart;
#: with two, the second-best, e.g. a plural, cost a Spanish single its page on the bench).
BRIDGE_PER_WORD: Final = 1
#: A paper's vocabulary is its most frequent words, at most this many (bounds the cost of
#: embedding it: about 0.3 s for 1,300 words with use-m3 on one core).
MAX_VOCABULARY: Final = 5_000
#: Excerpts of the papers in the question's language read for :func:`home_words` (more are
#: thinned to every k-th one, as the term frequencies are).
HOME_SAMPLE: Final = 2_000
_WORD: Final = re.compile(r"[^\W\d_]{4,}", re.UNICODE)


def paper_vocabulary(
    texts: Iterable[str], *, limit: int = MAX_VOCABULARY, exclude: Collection[str] = ()
) -> list[str]:
    """The distinct lower-case words (letters only, 4 or more) of ``texts``, leaving out
    those in ``exclude`` (lower-case): the ``limit`` most frequent, in alphabetical order."""
    if limit < 0:
        raise ValueError("limit must be >= 0")
    counts = Counter(w.casefold() for text in texts for w in _WORD.findall(text))
    kept = sorted((w for w in counts if w not in exclude), key=lambda w: (-counts[w], w))
    return sorted(kept[:limit])


def home_words(texts: Sequence[str], *, sample: int = HOME_SAMPLE) -> frozenset[str]:
    """The words (as :func:`paper_vocabulary` reads them) of the excerpts of the papers in
    the question's language, over at most ``sample`` of them (every k-th one).

    A paper in another language also holds words of the question's language: an English
    abstract, English titles in its references, a borrowed term. Its word closest to a
    question word is then often that word's English inflection ("articles" -> "article",
    "publisher" -> "publishers"), which takes the bridge's place and finds only those
    English lines. Left out of the paper's vocabulary, the bridge finds the paper's own
    words ("artigos", "editora") instead."""
    if sample <= 0 or not texts:
        return frozenset()
    step = max(1, -(-len(texts) // sample))
    return frozenset(w.casefold() for text in texts[::step] for w in _WORD.findall(text))


def bridge_words(
    words: Sequence[str],
    word_vectors: npt.NDArray[np.float32],
    vocabulary: Sequence[str],
    vocabulary_vectors: npt.NDArray[np.float32],
    *,
    threshold: float = BRIDGE_THRESHOLD,
    per_word: int = BRIDGE_PER_WORD,
) -> list[str]:
    """For each of ``words`` (in order), its closest words of ``vocabulary`` with a cosine
    of at least ``threshold`` (best first, at most ``per_word``), leaving out the words
    themselves and repeats. Rows of both matrices are unit vectors, one per word."""
    if per_word < 0:
        raise ValueError("per_word must be >= 0")
    if word_vectors.shape[0] != len(words) or vocabulary_vectors.shape[0] != len(vocabulary):
        raise ValueError("one vector per word is needed")
    if not words or not vocabulary or per_word == 0:
        return []
    sims = vocabulary_vectors @ word_vectors.T  # (vocabulary, words)
    seen = {w.casefold() for w in words}
    out: list[str] = []
    for j in range(len(words)):
        column = sims[:, j]
        taken = 0
        for i in np.argsort(-column, kind="stable"):
            if column[i] < threshold or taken == per_word:
                break
            word = vocabulary[int(i)]
            if word in seen:
                continue
            seen.add(word)
            out.append(word)
            taken += 1
    return out


def own_language(texts: Sequence[str]) -> list[str]:
    """The excerpts of one paper written in its own language: the language most of its
    excerpts are in (:func:`guess_language`), and those no language stands out in. A
    Portuguese paper's English abstract is left out (all of them when none is told)."""
    langs = [guess_language(t) for t in texts]
    told = Counter(lang for lang in langs if lang is not None)
    if not told:
        return list(texts)
    main = told.most_common(1)[0][0]
    return [t for t, lang in zip(texts, langs, strict=True) if lang in (main, None)]
