"""What a reflection says, built extractively from its cluster (no language model): a
reflection is a higher-order summary node with a centroid embedding.

- Centroid: the L2-normalised mean of the members' embeddings (the peer's ``compute_centroid``).
- Representative: the member closest to the centroid (cosine), ties by signal score then id,
  whose essence shows something (not :func:`~engrava_graph.model.bounds.blank`: a text stored
  before writes refused blank ones, or set by hand, may be); its essence becomes the
  reflection's essence. A cluster in which no essence shows anything yields no reflection.
- Key phrases: 1-3-word phrases (lower-cased, stop-words removed) ranked by how many members
  contain them, longer first at equal coverage, a phrase inside a chosen one skipped; only
  phrases shared by at least two members.
- Content: one line with the member count, cycle span and key phrases, then up to
  ``top_member_excerpts_count`` member excerpts, nearest the centroid first.
- Valid time: the tightest interval covering every member (an open member bound stays open),
  as the peer's ``derive_reflection_extent``.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.model.bounds import blank
from engrava_graph.model.records import ESSENCE_MAX_CHARS

_WORD_RE = re.compile(r"[^\W_]+")
_MIN_TOKEN_CHARS = 3
_MAX_PHRASE_WORDS = 3
_STOPWORDS = frozenset(
    "about above after again against also although among and another any anyone anything are "
    "around because been before being below between both but can cannot could did does doing "
    "done down during each either else even ever every few for from further had has have having "
    "her here hers herself him himself his how however into its itself just least less like "
    "made make many might more most much must myself near neither never nor not now off once "
    "one only other others our ours ourselves out over own per quite rather really same she "
    "should since some something still such than that the their theirs them themselves then "
    "there these they thing things this those though through thus too under until upon very "
    "was way were what whatever when where whether which while who whom whose why will with "
    "within without would yet you your yours yourself yourselves".split()
)


@dataclass(frozen=True)
class Member:
    """One cluster member as the summary reads it (a row of ``dreaming/members``)."""

    thought_id: str
    essence: str
    content: str
    embedding: np.ndarray
    created_cycle: int
    confidence: float | None
    valid_from: datetime | None
    valid_until: datetime | None
    score: float = 0.0


@dataclass(frozen=True)
class ReflectionDraft:
    """Everything a reflection node is written from (besides ids and stamps).

    Attributes:
        essence, content: the extractive summary.
        centroid: unit-length mean embedding (LIST<FLOAT>).
        key_phrases: the ranked phrases.
        representative_id: the member nearest the centroid with a visible essence.
        excerpt_ids: members whose excerpts the content shows, in order.
        confidence: mean of the members' set confidences; None when none is set.
        valid_from, valid_until: the covering valid-time interval.
        cycle_span: ``(min, max)`` of the members' ``created_cycle``.
    """

    essence: str
    content: str
    centroid: list[float]
    key_phrases: list[str]
    representative_id: str
    excerpt_ids: list[str]
    confidence: float | None
    valid_from: datetime | None
    valid_until: datetime | None
    cycle_span: tuple[int, int]


def tokens(text: str) -> list[str]:
    """Lower-cased words of at least 3 characters that are not stop-words, in order."""
    return [
        w
        for w in _WORD_RE.findall(text.lower())
        if len(w) >= _MIN_TOKEN_CHARS and w not in _STOPWORDS
    ]


def key_phrases(texts: Sequence[str], top_n: int) -> list[str]:
    """The ``top_n`` phrases shared by the most texts (see the module docstring)."""
    coverage: Counter[str] = Counter()
    for text in texts:
        words = tokens(text)
        coverage.update(
            {
                " ".join(words[i : i + n])
                for n in range(1, _MAX_PHRASE_WORDS + 1)
                for i in range(len(words) - n + 1)
            }
        )
    ranked = sorted(
        (p for p, c in coverage.items() if c >= 2), key=lambda p: (-coverage[p], -p.count(" "), p)
    )
    chosen: list[str] = []
    for phrase in ranked:
        if len(chosen) >= top_n:
            break
        if not any(f" {phrase} " in f" {kept} " for kept in chosen):
            chosen.append(phrase)
    return chosen


def centroid(vectors: np.ndarray) -> np.ndarray:
    """The L2-normalised mean of ``vectors`` (shape ``(n, d)``); a zero mean stays zero."""
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def _extent(members: Sequence[Member]) -> tuple[datetime | None, datetime | None]:
    starts = [m.valid_from for m in members]
    ends = [m.valid_until for m in members]
    start = None if any(s is None for s in starts) else min(s for s in starts if s)
    end = None if any(e is None for e in ends) else max(e for e in ends if e)
    return start, end


def _shorten(text: str, width: int) -> str:
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder="…")


def draft(members: Sequence[Member], config: DreamingConfig) -> ReflectionDraft | None:
    """Summarise a cluster into a :class:`ReflectionDraft`.

    Args:
        members: at least two members with equal-length embeddings.
        config: excerpt and key-phrase counts and lengths.

    Returns:
        The draft, or None when no member's essence shows anything (only whitespace and
        invisible characters): a reflection never has a blank essence.

    Raises:
        ValueError: fewer than two members.
    """
    if len(members) < 2:
        raise ValueError(f"a reflection needs at least two members, got {len(members)}")
    vectors = np.stack([m.embedding for m in members]).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    center = centroid(vectors)
    closeness = vectors @ center / np.where(norms > 0, norms, 1.0)
    order = sorted(
        range(len(members)),
        key=lambda i: (-round(float(closeness[i]), 6), -members[i].score, members[i].thought_id),
    )
    ranked = [members[i] for i in order]
    head = next((m for m in ranked if not blank(m.essence)), None)
    if head is None:
        return None
    phrases = key_phrases([m.content for m in members], config.top_keyphrases_count)
    cycles = [m.created_cycle for m in members]
    shown = ranked[: config.top_member_excerpts_count]
    summary_line = (
        f"Consolidated from {len(members)} thoughts (cycles {min(cycles)}-"
        f"{max(cycles)})." + (f" Key phrases: {'; '.join(phrases)}." if phrases else "")
    )
    lines = [
        summary_line,
        *(f"- {_shorten(m.content, config.member_excerpt_max_chars)}" for m in shown),
    ]
    confidences = [m.confidence for m in members if m.confidence is not None]
    valid_from, valid_until = _extent(members)
    return ReflectionDraft(
        essence=_shorten(head.essence, ESSENCE_MAX_CHARS),
        content="\n".join(lines),
        centroid=center.tolist(),
        key_phrases=phrases,
        representative_id=head.thought_id,
        excerpt_ids=[m.thought_id for m in shown],
        confidence=round(sum(confidences) / len(confidences), 6) if confidences else None,
        valid_from=valid_from,
        valid_until=valid_until,
        cycle_span=(min(cycles), max(cycles)),
    )
