"""Pathway routing (the Route phase): score exact / energy / attention from a query encoding.

The routing table, as data:

==========  ===================================  ==========================
Pathway     Triggered by                          Evidence used here
==========  ===================================  ==========================
exact       factual queries, specific entities    factual/temporal intent, entity count
energy      broad / exploratory queries           exploratory intent
attention   complex / multi-part queries          causal intent, extra clauses, a time range
==========  ===================================  ==========================

Each pathway's raw score is ``sum(intent_score[i] * INTENT_VOTES[i][pathway])`` plus, per
feature in :data:`FEATURE_VOTES`, ``per_unit * min(units, max_units)``; the three raw
scores are then divided by their sum. With these numbers the explain example,
"What caused the outage?" (causal, one entity), gives exactly
``{"exact": 0.2, "energy": 0.3, "attention": 0.5}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.types import (
    AUTO,
    Intent,
    Pathway,
    PathwayChoice,
    PathwayScores,
    QueryEncoding,
)

_EXACT, _ENERGY, _ATTENTION = Pathway.EXACT, Pathway.ENERGY, Pathway.ATTENTION

INTENT_VOTES: Final[Mapping[Intent, Mapping[Pathway, float]]] = MappingProxyType(
    {
        Intent.FACTUAL: MappingProxyType({_EXACT: 0.6, _ENERGY: 0.2, _ATTENTION: 0.1}),
        Intent.CAUSAL: MappingProxyType({_EXACT: 0.1, _ENERGY: 0.3, _ATTENTION: 0.5}),
        Intent.TEMPORAL: MappingProxyType({_EXACT: 0.4, _ENERGY: 0.1, _ATTENTION: 0.4}),
        Intent.EXPLORATORY: MappingProxyType({_EXACT: 0.1, _ENERGY: 0.7, _ATTENTION: 0.1}),
    }
)
"""How much a unit of each intent's score votes for each pathway."""


class FeatureVote(BaseModel):
    """A countable query feature that votes for one pathway.

    Attributes:
        pathway: The pathway the feature supports.
        per_unit: Raw score added per unit of the feature.
        max_units: Units beyond this count add nothing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    pathway: Pathway
    per_unit: float = Field(ge=0.0)
    max_units: int = Field(ge=0)


FEATURE_VOTES: Final[Mapping[str, FeatureVote]] = MappingProxyType(
    {
        "entity": FeatureVote(pathway=_EXACT, per_unit=0.1, max_units=3),
        "extra_clause": FeatureVote(pathway=_ATTENTION, per_unit=0.3, max_units=3),
        "temporal_marker": FeatureVote(pathway=_ATTENTION, per_unit=0.2, max_units=1),
    }
)
"""Features: ``entity`` counts entities and keywords, ``extra_clause`` counts clauses beyond
the first (``len(sub_queries) - 1``), ``temporal_marker`` is 1 when a time range was found."""


def route(encoding: QueryEncoding) -> PathwayScores:
    """Score the three pathways for an encoded query (the Route phase).

    Args:
        encoding: The Phase 1 output.

    Returns:
        :class:`PathwayScores`, each in [0, 1], summing to 1; ``.selected`` is the
        ``pathway="auto"`` choice.

    Examples:
        >>> from engrava_graph.retrieval.types import QueryEncoding
        >>> enc = QueryEncoding(text="What caused the outage?", intent=Intent.CAUSAL,
        ...     intent_scores={i: float(i is Intent.CAUSAL) for i in Intent},
        ...     entities=["outage"], temporal=None, sub_queries=["What caused the outage?"])
        >>> route(enc).model_dump()
        {'exact': 0.2, 'energy': 0.3, 'attention': 0.5}
    """
    units = {
        "entity": len(encoding.entities),
        "extra_clause": len(encoding.sub_queries) - 1,
        "temporal_marker": int(encoding.temporal is not None),
    }
    raw = dict.fromkeys(Pathway, 0.0)
    for intent, score in encoding.intent_scores.items():
        for pathway, vote in INTENT_VOTES[intent].items():
            raw[pathway] += score * vote
    for name, feature in FEATURE_VOTES.items():
        raw[feature.pathway] += feature.per_unit * min(units[name], feature.max_units)
    total = sum(raw.values())
    return PathwayScores(**{p.value: round(v / total, 12) for p, v in raw.items()})


def select_pathway(scores: PathwayScores, requested: PathwayChoice = AUTO) -> Pathway:
    """Pick the pathway to run: the request's explicit choice, or the router's for ``"auto"``.

    Args:
        scores: The router's scores (kept in the explanation either way).
        requested: ``"auto"`` or a :class:`Pathway` (its string value is accepted too).

    Returns:
        The pathway to run.

    Raises:
        InvalidQueryError: If ``requested`` is neither ``"auto"`` nor a pathway name.
    """
    if requested == AUTO:
        return scores.selected
    try:
        return Pathway(requested)
    except ValueError as error:
        allowed = ", ".join([AUTO, *Pathway])
        raise InvalidQueryError(
            f"unknown pathway {requested!r}; use one of: {allowed}", field="pathway"
        ) from error
