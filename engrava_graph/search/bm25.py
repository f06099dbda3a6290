"""BM25 over one namespace's statistics (pure functions).

Neo4j's full-text index scores with BM25 over the whole database (every namespace, and deleted
documents until Lucene merges its segments), so a namespace's keyword ranking would depend on
other tenants' data. The keyword arm therefore uses the index only to find candidates and
scores them here with the namespace's own statistics: document count, mean document length,
and each term's document frequency within the namespace, counted on the thoughts the index
matched with the same analysis as the query (:func:`~engrava_graph.search.lucene.analyse`).

Formula (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond")::

    score(d) = sum over query terms t of idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl/avgdl))
    idf(t)   = max(ln((N - df + 0.5) / (df + 0.5)), 1e-6)

``k1 = 1.2``; ``b = 0.5`` (less length normalisation than Lucene's 0.75: memories are short, and
LoCoMo conv-26/30/41/42 favour it); the Robertson-Spärck Jones idf floored at 1e-6 as SQLite
FTS5's ``bm25()`` (the peer ``engrava``'s) does, so a term in more than half of the namespace's
thoughts (a speaker's name on every turn) carries almost no weight. Lengths are in characters
(only the ratio ``dl / avgdl`` matters).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from engrava_graph.search.lucene import analyse

K1 = 1.2
B = 0.5
_IDF_FLOOR = 1e-6


@dataclass(frozen=True)
class CorpusStats:
    """Statistics of one namespace.

    Attributes:
        documents: how many thoughts it holds (N).
        mean_length: the mean length of their keyword texts (``cypher/search/_keyword_text``),
            characters (avgdl).
    """

    documents: int
    mean_length: float


class Candidate(NamedTuple):
    """A thought the index matched, as BM25 sees it for one query.

    Attributes:
        thought_id: its id.
        tf: how often each query term occurs in its keyword text, in the query's
            term order.
        length: that text's length in characters.
    """

    thought_id: str
    tf: tuple[int, ...]
    length: int

    @classmethod
    def of_text(cls, thought_id: str, text: str, terms: Sequence[str]) -> Candidate:
        """A candidate analysed from its keyword text (``cypher/search/_keyword_text``)."""
        counts = term_counts(text)
        return cls(thought_id, tuple(counts.get(t, 0) for t in terms), len(text))


@lru_cache(maxsize=16_384)
def term_counts(text: str) -> Counter[str]:
    """How often each term occurs in ``text`` (:func:`~engrava_graph.search.lucene.analyse`),
    memoised: a namespace's texts recur across queries. Do not mutate the result."""
    return Counter(analyse(text))


def document_frequencies(candidates: Iterable[Candidate], terms: Sequence[str]) -> dict[str, int]:
    """How many of ``candidates`` contain each of the query ``terms`` (their order in
    :attr:`Candidate.tf`).

    Examples:
        >>> texts, terms = ["Deploy failed", "The deployment window", "lunch"], ["deploy"]
        >>> document_frequencies([Candidate.of_text(t, t, terms) for t in texts], terms)
        {'deploy': 2}
    """
    df = [0] * len(terms)
    for candidate in candidates:
        for i, tf in enumerate(candidate.tf):
            if tf:
                df[i] += 1
    return dict(zip(terms, df, strict=True))


def idf(documents: int, df: int) -> float:
    """The Robertson-Spärck Jones idf ``ln((N - df + 0.5) / (df + 0.5))``, at least 1e-6.

    Examples:
        >>> round(idf(100, 1), 3), idf(100, 60)
        (4.195, 1e-06)
    """
    df = min(max(df, 0), max(documents, 0))
    return max(math.log((documents - df + 0.5) / (df + 0.5)), _IDF_FLOOR)


def score(
    candidates: Iterable[Candidate], terms: Sequence[str], df: Mapping[str, int], stats: CorpusStats
) -> list[tuple[str, float]]:
    """BM25 of each candidate for the query ``terms`` (distinct, analysed; the order of
    :attr:`Candidate.tf`).

    Args:
        candidates: the matched thoughts.
        terms: the query's terms.
        df: each term's document frequency in the namespace.
        stats: the namespace's :class:`CorpusStats`.

    Returns:
        ``(thought_id, score > 0)`` best first, ties by thought_id; thoughts scoring 0 left out.
    """
    weights = [idf(stats.documents, df.get(t, 0)) for t in terms]
    avgdl = max(stats.mean_length, 1.0)
    scored = []
    for candidate in candidates:
        norm = K1 * (1.0 - B + B * candidate.length / avgdl)
        total = 0.0
        for weight, tf in zip(weights, candidate.tf, strict=True):
            if tf:
                total += weight * tf * (K1 + 1.0) / (tf + norm)
        if total > 0.0:
            scored.append((candidate.thought_id, total))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored
