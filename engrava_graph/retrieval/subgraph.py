"""The graph around one explained retrieval: the relationships among its candidates and the
Entity/Tag nodes they share. The visual explain (:mod:`.visual`) draws it; it is read after the
run, from ``cypher/retrieval/explain_subgraph.cypher``."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.retrieval.results import Explanation

_SUBGRAPH = cypher("retrieval/explain_subgraph")
DEFAULT_MAX_SHARED = 20
"""Shared Entity/Tag nodes drawn at most (the most shared first)."""
DEFAULT_MAX_MEMBERS = 12
"""An Entity/Tag node shared by more candidates than this is left out: it links nearly
everything (the speaker of a conversation, say) and hides the paths that matter."""

_FROZEN = ConfigDict(frozen=True)


class SubgraphEdge(BaseModel):
    """A typed relationship whose two ends are both candidates of the run.

    Attributes:
        edge_id, edge_type: the relationship.
        from_thought_id, to_thought_id: its direction as stored.
        weight: strength in [0, 1]; confidence: link confidence in [0, 1] (causal edges) or None.
    """

    model_config = _FROZEN

    edge_id: str
    edge_type: str
    from_thought_id: str
    to_thought_id: str
    weight: float | None = None
    confidence: float | None = None


class SharedNode(BaseModel):
    """An Entity or Tag node that several candidates point to (a spreading path).

    Attributes:
        label: ``"Entity"`` (``MENTIONS``) or ``"Tag"`` (``TAGGED``).
        name: the entity or tag name.
        thought_ids: the candidates linked to it.
    """

    model_config = _FROZEN

    label: Literal["Entity", "Tag"]
    name: str
    thought_ids: list[str]


class ExplainSubgraph(BaseModel):
    """What :func:`load_subgraph` returns.

    Attributes:
        edges: relationships among the candidates.
        shared: Entity/Tag nodes shared by two or more candidates (see ``max_members``).
    """

    model_config = _FROZEN

    edges: list[SubgraphEdge] = Field(default_factory=list)
    shared: list[SharedNode] = Field(default_factory=list)


def explained_ids(explanation: Explanation) -> list[str]:
    """The thought ids an explanation covers: every candidate at ``level="debug"``, else the
    returned results (in rank order)."""
    if explanation.candidates is not None:
        return [c.thought_id for c in explanation.candidates]
    return [r.thought_id for r in explanation.results]


class NamespaceReader(Protocol):
    """What :func:`load_subgraph` reads through: a store (``Neo4jEngravaCore``) is one."""

    @property
    def executor(self) -> GraphExecutor: ...

    @property
    def namespace(self) -> str: ...


async def load_subgraph(
    store: NamespaceReader,
    explanation: Explanation,
    *,
    max_shared: int = DEFAULT_MAX_SHARED,
    max_members: int = DEFAULT_MAX_MEMBERS,
) -> ExplainSubgraph:
    """Read the relationships among ``explanation``'s thoughts in ``store``'s namespace, and the
    Entity/Tag nodes they share (one read).

    Args:
        store: the store the explanation was produced by (its namespace is used).
        explanation: the output of ``store.explain(...)`` (``level="debug"`` covers every
            candidate, ``"summary"`` only the results).
        max_shared: at most this many shared Entity/Tag nodes, the most shared first.
        max_members: leave out an Entity/Tag node shared by more candidates than this.

    Returns:
        The subgraph; empty when the explanation has no thoughts.
    """
    ids = explained_ids(explanation)
    if not ids:
        return ExplainSubgraph()
    rows = await store.executor.read(
        _SUBGRAPH,
        namespace=store.namespace,
        thought_ids=ids,
        max_shared=max_shared,
        max_members=max_members,
    )
    return ExplainSubgraph.model_validate(rows[0])
