"""import-engrava: a database written by the peer package ``engrava`` arrives in Neo4j whole
(counts and records equal), a second run finishes nothing twice, and bad input fails clearly."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import aiosqlite
import numpy as np
import pytest
from engrava import EdgeRecord as PeerEdge
from engrava import EdgeType as PeerEdgeType
from engrava import LifecycleStatus as PeerStatus
from engrava import Priority as PeerPriority
from engrava import ProvenanceContext, SqliteEngravaCore
from engrava import ThoughtRecord as PeerThought
from engrava import ThoughtType as PeerType

from engrava_graph.migrate_engrava import Counts, import_snapshot, read_engrava
from engrava_graph.model.errors import MigrationError

MODEL = "all-MiniLM-L6-v2"
DIMENSIONS = 384
TIMESTAMPS = {
    "created_at",
    "updated_at",
    "last_accessed_at",
    "expires_at",
    "valid_from",
    "valid_until",
    "archived_at",
}


def _peer_thought(i: int, thought_type: PeerType, **fields: object) -> PeerThought:
    data: dict[str, object] = {
        "thought_id": f"peer-{i}",
        "thought_type": thought_type,
        "essence": f"{thought_type.value.lower()} number {i}",
        "content": f"The full text of {thought_type.value.lower()} number {i}.",
        "priority": list(PeerPriority)[i % 4],
        "lifecycle_status": PeerStatus.ACTIVE,
        "created_cycle": i,
        "updated_cycle": i + 2,
        "source": "peer-test",
        "confidence": 0.5 + i / 100,
        "metadata": {"speaker": "Ann", "turn": i, "session": {"id": "s-1", "ok": True}},
        "valid_from": "2024-05-01T10:00:00+02:00",
    }
    data.update(fields)
    return PeerThought(**data)  # type: ignore[arg-type]


@dataclass
class PeerFile:
    """A database made by the engrava package, and what the package reads back from it."""

    path: Path
    thoughts: list[PeerThought] = field(default_factory=list)
    edges: list[PeerEdge] = field(default_factory=list)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)


async def _write_peer_db(
    path: Path, *, thoughts: list[PeerThought], edges: list[PeerEdge], embed: set[str]
) -> PeerFile:
    rng = np.random.default_rng(7)
    made = PeerFile(path)
    conn = await aiosqlite.connect(path)
    conn.row_factory = aiosqlite.Row
    try:
        peer = SqliteEngravaCore(conn)
        await peer.ensure_schema()
        for record in thoughts:
            await peer.create_thought(record)
            if record.thought_id in embed:
                vector = rng.standard_normal(DIMENSIONS).astype(np.float32)
                await peer.store_embedding(record.thought_id, vector.tolist(), model_name=MODEL)
                made.vectors[record.thought_id] = vector
        for edge in edges:
            await peer.create_edge(edge)
        await conn.commit()
        made.thoughts = await peer.list_thoughts(include_expired=True, limit=1000)
        made.edges = await peer.list_edges()
    finally:
        await conn.close()
    return made


async def _edit_peer_db(path: Path, thought_id: str, vector: np.ndarray, **changes: Any) -> Any:
    """Update a thought in the file with the peer's own API, and its vector; the new record."""
    conn = await aiosqlite.connect(path)
    conn.row_factory = aiosqlite.Row
    try:
        peer = SqliteEngravaCore(conn)
        record = await peer.update_thought(thought_id, **changes)
        await peer.store_embedding(thought_id, vector.tolist(), model_name=MODEL)
        await conn.commit()
    finally:
        await conn.close()
    return record


def _same(ours: dict[str, Any], theirs: dict[str, Any], skip: set[str]) -> None:
    """Every field of the peer's record equals ours (instants compared as instants)."""
    for key, value in theirs.items():
        if key in skip:
            continue
        if key in TIMESTAMPS and value is not None:
            assert datetime.fromisoformat(ours[key]) == datetime.fromisoformat(value), key
        else:
            assert ours[key] == value, key


THOUGHTS = [
    *(_peer_thought(i, t) for i, t in enumerate(PeerType)),
    _peer_thought(
        10,
        PeerType.OBSERVATION,
        expires_at="2020-01-01T00:00:00Z",
        provenance=ProvenanceContext(session_id="s-1"),
    ),
    _peer_thought(11, PeerType.TASK, lifecycle_status=PeerStatus.DONE, valid_from=None),
]
EDGES = [
    PeerEdge(
        edge_id="pe-1",
        from_thought_id="peer-0",
        to_thought_id="peer-1",
        edge_type=PeerEdgeType.DEPENDS_ON,
        weight=0.8,
        created_cycle=3,
        metadata={"why": "blocked"},
    ),
    PeerEdge(
        edge_id="pe-2",
        from_thought_id="peer-3",
        to_thought_id="peer-1",
        edge_type=PeerEdgeType.CONSOLIDATED_FROM,
        weight=1.0,
        created_cycle=4,
    ),
    PeerEdge(
        edge_id="pe-3",
        from_thought_id="peer-10",
        to_thought_id="peer-2",
        edge_type=PeerEdgeType.ASSOCIATED,
        weight=0.3,
        created_cycle=5,
    ),
]
EMBEDDED = {f"peer-{i}" for i in (0, 1, 2, 3, 4, 10)}


@pytest.fixture
async def peer_db(tmp_path) -> PeerFile:
    return await _write_peer_db(
        tmp_path / "memory.db", thoughts=THOUGHTS, edges=EDGES, embed=EMBEDDED
    )


async def test_import_round_trips_a_peer_database(store, peer_db):
    snapshot = await read_engrava(peer_db.path)
    assert snapshot.counts == Counts(thoughts=8, embeddings=6, edges=3)
    assert (snapshot.embedding_model, snapshot.dimensions) == (MODEL, DIMENSIONS)
    assert snapshot.dropped == {"provenance": 1}

    report = await import_snapshot(store, snapshot, chunk_size=3)
    assert report.ok
    assert report.expected == report.written == report.found == snapshot.counts
    assert report.skipped == Counts()

    assert len(peer_db.thoughts) == len(THOUGHTS)
    for peer in peer_db.thoughts:
        stored = await store.get_thought(peer.thought_id)
        _same(
            stored.model_dump(mode="json"),
            peer.model_dump(mode="json"),
            skip={"embedding_ref", "provenance", "action_outcome_score"},
        )
    assert (await store.get_thought("peer-10")).expires_at.year == 2020
    assert (await store.get_thought("peer-0")).valid_from.isoformat() == "2024-05-01T08:00:00+00:00"
    for thought_id, vector in peer_db.vectors.items():
        assert np.allclose(await store.get_embedding(thought_id), vector, atol=1e-6)
    assert await store.get_embedding("peer-5") is None
    for peer in peer_db.edges:
        _same(
            (await store.get_edge(peer.edge_id)).model_dump(mode="json"),
            peer.model_dump(mode="json"),
            skip=set(),
        )


async def test_running_the_import_again_writes_nothing_and_finishes_a_partial_one(store, peer_db):
    snapshot = await read_engrava(peer_db.path)
    cut_short = dataclasses.replace(snapshot, thoughts=snapshot.thoughts[:3], edges=[])
    assert (await import_snapshot(store, cut_short, chunk_size=2)).found.thoughts == 3
    first = await import_snapshot(store, snapshot)
    assert first.ok and first.skipped.thoughts == 3 and first.written.thoughts == 5
    again = await import_snapshot(store, snapshot)
    assert again.ok and again.written == Counts() and again.skipped == snapshot.counts


async def test_re_embed_after_a_plain_import_replaces_the_file_vectors(make_store, peer_db):
    snapshot = await read_engrava(peer_db.path)
    store, fresh = make_store(), make_store()
    assert (await import_snapshot(store, snapshot)).ok
    report = await import_snapshot(store, snapshot, re_embed=True)
    assert report.ok and report.found.embeddings == len(THOUGHTS)
    assert report.written == Counts(thoughts=0, embeddings=len(THOUGHTS), edges=0)
    assert report.skipped == Counts(thoughts=len(THOUGHTS), embeddings=0, edges=len(EDGES))
    assert (await import_snapshot(fresh, snapshot, re_embed=True)).ok
    ids = [t.thought_id for t in snapshot.thoughts]
    replaced, embedded_fresh = await store.get_embeddings(ids), await fresh.get_embeddings(ids)
    assert replaced.keys() == embedded_fresh.keys() == set(ids)
    for thought_id in ids:
        assert np.allclose(replaced[thought_id], embedded_fresh[thought_id], atol=1e-5)
    for thought_id, vector in peer_db.vectors.items():
        assert not np.allclose(replaced[thought_id], vector, atol=1e-3)


@pytest.mark.parametrize("embedded", [set(), EMBEDDED], ids=["no vectors", "some vectors"])
async def test_the_same_import_passes_again_after_a_re_embed(store, tmp_path, embedded):
    """Vectors the file does not hold (from --re-embed) are no shortfall of a plain re-run."""
    path = tmp_path / "memory.db"
    await _write_peer_db(path, thoughts=THOUGHTS, edges=EDGES, embed=embedded)
    snapshot = await read_engrava(path)
    assert (await import_snapshot(store, snapshot)).ok
    assert (await import_snapshot(store, snapshot, re_embed=True)).ok
    again = await import_snapshot(store, snapshot)
    assert again.ok and again.written == Counts()
    assert again.expected == again.found == snapshot.counts


async def test_a_re_import_brings_the_newer_version_of_a_thought(store, peer_db):
    """By updated_at: the file's newer version replaces the stored one (fields, vector, links);
    a thought changed in Neo4j after the import is newer than the file's and stays."""
    assert (await import_snapshot(store, await read_engrava(peer_db.path))).ok
    await store.update_thought("peer-1", essence="edited in neo4j")
    vector = np.random.default_rng(11).standard_normal(DIMENSIONS).astype(np.float32)
    edited = await _edit_peer_db(
        peer_db.path,
        "peer-0",
        vector,
        content="The deploy to Oslo failed.",
        metadata={"speaker": "Bob"},
        thought_type=PeerType.NOTE,
    )
    report = await import_snapshot(store, await read_engrava(peer_db.path))
    assert report.ok
    assert report.updated == Counts(thoughts=1, embeddings=1, edges=0)
    assert report.written == Counts() and report.skipped.thoughts == len(THOUGHTS) - 1

    stored = await store.get_thought("peer-0")
    _same(
        stored.model_dump(mode="json"),
        edited.model_dump(mode="json"),
        skip={"embedding_ref", "provenance", "action_outcome_score"},
    )
    assert stored.metadata == {"speaker": "Bob"}
    assert np.allclose(await store.get_embedding("peer-0"), vector, atol=1e-6)
    assert [tid for tid, _ in await store.search_fts("Oslo", top_k=5)] == ["peer-0"]
    assert (await store.get_thought("peer-1")).essence == "edited in neo4j"
    again = await import_snapshot(store, await read_engrava(peer_db.path))
    assert again.ok and again.updated == Counts()


async def test_a_store_with_other_dimensions_is_refused_before_any_write(make_store, peer_db):
    small = make_store(embedding_provider=None, vector_dimensions=128)
    with pytest.raises(MigrationError, match="384-dimension"):
        await import_snapshot(small, await read_engrava(peer_db.path))
    assert await small.count_thoughts() == 0


async def test_records_that_do_not_fit_are_named(tmp_path):
    path = tmp_path / "dotted.db"
    await _write_peer_db(
        path,
        thoughts=[_peer_thought(1, PeerType.NOTE, metadata={"user.name": "Ann"})],
        edges=[],
        embed=set(),
    )
    with pytest.raises(MigrationError, match="thought 'peer-1': metadata"):
        await read_engrava(path)


async def test_missing_or_foreign_files_fail_clearly(tmp_path):
    with pytest.raises(MigrationError, match="does not exist"):
        await read_engrava(tmp_path / "absent.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(MigrationError, match="cannot be read as an engrava database"):
        await read_engrava(junk)


async def test_import_command_checks_the_counts(store, peer_db):
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "from engrava_graph.cli import app; app()",
        "import-engrava",
        str(peer_db.path),
        "--namespace",
        store.namespace,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    assert "count check passed" in out.decode()
    assert await store.count_thoughts(include_expired=True) == len(THOUGHTS)
