"""The peer package ``engrava`` (``SqliteEngravaCore``) holding the same conversation, for the
side-by-side figures of the demo and ``benchmarks/bench_locomo.py``.

The peer gets the same thoughts and edges as our store holds (as its own records), one SQLite
file per conversation in a temporary directory, and the very vectors our store holds (through
its public ``store_embedding``), so both index identical embeddings. Queries are embedded by the
peer's own ``SentenceTransformerProvider``, pointed at the same bundled all-MiniLM-L6-v2 files
as ours (offline), inside its ``search_hybrid`` as a peer user would call it. ``engrava`` is an
optional dependency (the ``test`` extra); :func:`peer_available` says whether it is installed.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engrava_graph.embeddings.sentence_transformer import bundled_model_path
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.records import EdgeRecord, ThoughtRecord

if TYPE_CHECKING:
    from engrava_graph.core import Neo4jEngravaCore


def peer_available() -> bool:
    """Whether the peer package ``engrava`` (and ``aiosqlite``) can be imported."""
    return all(importlib.util.find_spec(m) is not None for m in ("engrava", "aiosqlite"))


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _peer_thought(record: ThoughtRecord) -> Any:
    import engrava

    return engrava.ThoughtRecord(
        thought_id=record.thought_id,
        thought_type=engrava.ThoughtType(record.thought_type.value),
        essence=record.essence,
        content=record.content,
        priority=engrava.Priority(record.priority.value),
        lifecycle_status=engrava.LifecycleStatus(record.lifecycle_status.value),
        created_cycle=record.created_cycle,
        updated_cycle=record.updated_cycle,
        source=record.source,
        created_at=_iso(record.created_at),
        updated_at=_iso(record.updated_at),
        valid_from=_iso(record.valid_from),
        metadata=record.metadata,
    )


def _peer_edge(record: EdgeRecord) -> Any:
    import engrava

    return engrava.EdgeRecord(
        edge_id=record.edge_id,
        from_thought_id=record.from_thought_id,
        to_thought_id=record.to_thought_id,
        edge_type=engrava.EdgeType(record.edge_type.value),
        weight=record.weight,
        created_cycle=record.created_cycle,
    )


class PeerStore:
    """One conversation in the peer's store.

    Args:
        core: an open ``engrava.SqliteEngravaCore`` with an embedding provider.
    """

    def __init__(self, core: Any) -> None:
        self.core = core

    async def load(
        self,
        thoughts: Sequence[ThoughtRecord],
        edges: Sequence[EdgeRecord],
        vectors: Mapping[str, list[float]],
        model_name: str,
    ) -> None:
        """Store ``thoughts``, their ``vectors`` (by thought id, recorded under
        ``model_name``) and ``edges``, in one commit."""
        async with self.core.suspend_auto_commit():
            await self.core.bulk_store([_peer_thought(t) for t in thoughts])
            for thought_id in sorted(vectors):
                await self.core.store_embedding(
                    thought_id, vectors[thought_id], model_name=model_name
                )
            for edge in edges:
                await self.core.create_edge(_peer_edge(edge))

    async def search(self, query: str, top_k: int) -> list[str]:
        """The peer's ``search_hybrid`` with its defaults (recency off: no cycle, no instant)."""
        result = await self.core.search_hybrid(query, top_k=top_k)
        return [thought_id for thought_id, _ in result.results]


@asynccontextmanager
async def open_peer(
    name: str,
    thoughts: Sequence[ThoughtRecord],
    edges: Sequence[EdgeRecord],
    vectors: Mapping[str, list[float]],
    directory: str | Path | None = None,
) -> AsyncIterator[PeerStore]:
    """A :class:`PeerStore` holding ``thoughts``, ``edges`` and ``vectors`` (thought id ->
    384 floats) in a new SQLite file ``<name>.db`` (deleted on exit).

    Raises:
        ModuleNotFoundError: ``engrava`` is not installed (check :func:`peer_available`).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import aiosqlite
    from engrava import SqliteEngravaCore
    from engrava.embeddings.sentence_transformer import SentenceTransformerProvider

    with tempfile.TemporaryDirectory(prefix="engrava-peer-", dir=directory) as tmp:
        db = await aiosqlite.connect(str(Path(tmp) / f"{name}.db"))
        try:
            db.row_factory = aiosqlite.Row
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA foreign_keys=ON")
            provider = SentenceTransformerProvider(model_name=bundled_model_path())
            core = SqliteEngravaCore(db, embedding_provider=provider, auto_embed=False)
            await core.ensure_schema()
            store = PeerStore(core)
            await store.load(thoughts, edges, vectors, provider.model_name)
            yield store
        finally:
            await db.close()


@asynccontextmanager
async def open_peer_copy(
    store: Neo4jEngravaCore, name: str, directory: str | Path | None = None
) -> AsyncIterator[PeerStore]:
    """:func:`open_peer` holding what ``store``'s namespace holds (at most 10,000 thoughts, but
    dreaming's reflections), the very vectors it holds, and the edges between those thoughts.

    Raises:
        ModuleNotFoundError: ``engrava`` is not installed (check :func:`peer_available`).
    """
    thoughts = [
        t
        for t in await store.list_thoughts(limit=10_000)
        if t.thought_type is not ThoughtType.REFLECTION
    ]
    ids = {t.thought_id for t in thoughts}
    edges = [
        e
        for e in await store.list_edges(limit=100_000)
        if e.from_thought_id in ids and e.to_thought_id in ids
    ]
    vectors = await store.get_embeddings(sorted(ids))
    async with open_peer(name, thoughts, edges, vectors, directory) as peer:
        yield peer
