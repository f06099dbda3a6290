"""Move a memory from the peer package ``engrava`` (one SQLite file) into a Neo4j namespace.

The file is read with the peer's own read API, ``SqliteEngravaCore`` behind ``ReadOnlyEngrava``
on a read-only SQLite connection (the file is never written): every thought, expired ones
included, every edge, and every thought's embedding. Both packages implement the thought-graph
model with the same field names, so records map field for field; timestamps become UTC instants
and embeddings are unpacked from the peer's float32 blobs. What has no place in the Neo4j model
is counted in the report, not stored: a thought's ``provenance`` and ``action_outcome_score``
(the peer's actions are not read).

Writes go through :meth:`~engrava_graph.core.Neo4jEngravaCore.bulk_store` and
:meth:`~engrava_graph.core.Neo4jEngravaCore.bulk_create_edges`, one transaction per chunk.
Records whose id is already in the namespace are skipped, so running the import again after an
interruption finishes it, except a thought the file holds a newer version of (``updated_at``
later), which replaces the stored one
(:meth:`~engrava_graph.core.Neo4jEngravaCore.replace_older`); with ``re_embed`` the vectors of
the thoughts already there are replaced too, so the flag works on a namespace imported before.
At the end every id of the file is looked up in Neo4j: the thoughts, embeddings and edges found
must number exactly what the file holds (:attr:`ImportReport.ok`).

The whole file is held in memory while it is imported (its text plus 4 bytes per embedding
dimension per thought).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ValidationError

from engrava_graph.graph.registry import cypher
from engrava_graph.model.errors import MigrationError, MigrationInputError
from engrava_graph.model.records import EdgeRecord, ThoughtRecord

if TYPE_CHECKING:
    from engrava.infrastructure.read_only_store import ReadOnlyEngrava

    from engrava_graph.core import Neo4jEngravaCore

_PRESENT = cypher("migrate/present")
DEFAULT_CHUNK_SIZE = 500
"""Thoughts or edges per write transaction."""
_PAGE_SIZE = 500  # thoughts per read from the SQLite file
_DROPPED_FIELDS = ("provenance", "action_outcome_score")
"""Peer thought fields with no place in the Neo4j model (counted, not stored)."""
_IGNORED_FIELDS = frozenset({"embedding_ref"})  # the peer's pointer to its embedding row
_ERRORS_SHOWN = 10


@dataclass(frozen=True)
class Counts:
    """How many thoughts, embeddings and edges."""

    thoughts: int = 0
    embeddings: int = 0
    edges: int = 0


@dataclass
class EngravaSnapshot:
    """The records of one ``engrava`` file, mapped to this package's records.

    Attributes:
        path: the file.
        thoughts, edges: the records, validated.
        embeddings: ``{thought_id: float32 vector}`` for thoughts that have one.
        embedding_model: the peer's embedding model name (None without embeddings).
        dimensions: the embeddings' length (None without embeddings).
        dropped: ``{field: number of thoughts}`` for the fields that are not carried over.
    """

    path: Path
    thoughts: list[ThoughtRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    embeddings: dict[str, np.ndarray] = field(default_factory=dict)
    embedding_model: str | None = None
    dimensions: int | None = None
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> Counts:
        """What the file holds."""
        return Counts(len(self.thoughts), len(self.embeddings), len(self.edges))


@dataclass(frozen=True)
class ImportReport:
    """The outcome of :func:`import_snapshot`.

    Attributes:
        namespace: where the records went.
        expected: what Neo4j must hold at the end (the file's counts; with ``re_embed`` one
            embedding per thought).
        written: what this run wrote (with ``re_embed``, the embeddings include the vectors
            replaced on thoughts that were already there).
        updated: the thoughts already in the namespace that the file holds a newer version of
            (its ``updated_at`` later), replaced by it, and the vectors written with them.
        skipped: what was already in the namespace (same ids) and was left as it was.
        found: what the final check found in Neo4j: the file's thoughts and edges, and of its
            thoughts those expected to have a vector that have one (a vector on one of them the
            file has none for, given by an earlier ``re_embed``, is not counted).
        embedding_model: whose vectors the namespace now holds.
        dropped: ``{field: thoughts}`` not carried over.
    """

    namespace: str
    expected: Counts
    written: Counts
    updated: Counts
    skipped: Counts
    found: Counts
    embedding_model: str | None
    dropped: dict[str, int]

    @property
    def ok(self) -> bool:
        """Whether Neo4j holds exactly what was expected (the count check)."""
        return self.found == self.expected


@asynccontextmanager
async def _open_read_only(path: Path) -> AsyncIterator[ReadOnlyEngrava]:
    """The peer store on a read-only connection to ``path``."""
    import aiosqlite
    from engrava import ReadOnlyEngrava, SqliteEngravaCore

    conn = await aiosqlite.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.row_factory = aiosqlite.Row
        yield ReadOnlyEngrava(SqliteEngravaCore(conn))
    finally:
        await conn.close()


def _mapped(model: type[BaseModel], data: dict[str, Any], what: str, errors: list[str]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        errors.append(f"{what}: {'.'.join(map(str, first['loc']))}: {first['msg']}")
        return None


async def _read_thoughts(
    source: ReadOnlyEngrava, total: int, snapshot: EngravaSnapshot, errors: list[str]
) -> None:
    models: set[str] = set()
    dimensions: set[int] = set()
    for offset in range(0, total, _PAGE_SIZE):
        page = await source.list_thoughts(include_expired=True, limit=_PAGE_SIZE, offset=offset)
        for peer in page:
            data = peer.model_dump(mode="json", exclude={*_IGNORED_FIELDS, *_DROPPED_FIELDS})
            for name in _DROPPED_FIELDS:
                if getattr(peer, name) is not None:
                    snapshot.dropped[name] = snapshot.dropped.get(name, 0) + 1
            record = _mapped(ThoughtRecord, data, f"thought {peer.thought_id!r}", errors)
            if record is not None:
                snapshot.thoughts.append(record)
            embedding = await source.get_embedding(peer.thought_id)
            if embedding is not None:
                snapshot.embeddings[peer.thought_id] = np.frombuffer(
                    embedding.vector_blob, dtype=np.float32
                )
                models.add(embedding.model_name)
                dimensions.add(embedding.dimension)
    if len(models) > 1 or len(dimensions) > 1:
        errors.append(
            f"embeddings come from several models {sorted(models)} / dimensions "
            f"{sorted(dimensions)}; re-embed the file with one model first"
        )
    snapshot.embedding_model = next(iter(models), None)
    snapshot.dimensions = next(iter(dimensions), None)


async def read_engrava(path: str | Path) -> EngravaSnapshot:
    """Read every thought, edge and embedding of an ``engrava`` SQLite file.

    Args:
        path: the ``.db`` file written by the ``engrava`` package.

    Returns:
        The mapped, validated records.

    Raises:
        MigrationInputError: the file is missing or not an ``engrava`` database, or holds
            records this package cannot store (the first ten are named).
        MigrationError: the ``engrava`` package is not installed, or the file changed while it
            was read.
    """
    try:
        from engrava import EngravaError
    except ImportError as exc:
        raise MigrationError(
            "reading an engrava file needs the engrava package: pip install engrava"
        ) from exc
    path = Path(path)
    if not path.is_file():
        raise MigrationInputError(f"{path} does not exist or is not a file")
    snapshot = EngravaSnapshot(path=path)
    errors: list[str] = []
    try:
        async with _open_read_only(path) as source:
            metrics = await source.metrics()
            await _read_thoughts(source, metrics.thoughts.total, snapshot, errors)
            for peer in await source.list_edges(limit=max(metrics.edges.total, 1)):
                edge = _mapped(
                    EdgeRecord, peer.model_dump(mode="json"), f"edge {peer.edge_id!r}", errors
                )
                if edge is not None:
                    snapshot.edges.append(edge)
            total_thoughts, total_edges = metrics.thoughts.total, metrics.edges.total
    except (sqlite3.Error, EngravaError) as exc:
        raise MigrationInputError(
            f"{path} cannot be read as an engrava database ({type(exc).__name__}: {exc})"
        ) from exc
    if errors:
        shown = "; ".join(errors[:_ERRORS_SHOWN])
        raise MigrationInputError(
            f"{len(errors)} record(s) of {path} cannot be imported: {shown}"
            + (" ..." if len(errors) > _ERRORS_SHOWN else "")
        )
    read = (len({t.thought_id for t in snapshot.thoughts}), len(snapshot.edges))
    if read != (total_thoughts, total_edges):
        raise MigrationError(
            f"{path} changed while it was read ({read[0]}/{total_thoughts} "
            f"thoughts, {read[1]}/{total_edges} edges); stop its writers and "
            f"run the import again"
        )
    return snapshot


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


async def _present(
    store: Neo4jEngravaCore, thought_ids: Sequence[str], edge_ids: Sequence[str], chunk_size: int
) -> tuple[set[str], set[str], set[str]]:
    """The given ids found in the store's namespace: thoughts, embedded thoughts, edges."""
    thoughts: set[str] = set()
    embedded: set[str] = set()
    edges: set[str] = set()
    for i in range(0, max(len(thought_ids), len(edge_ids)), chunk_size):
        row = (
            await store.executor.read(
                _PRESENT,
                namespace=store.namespace,
                thought_ids=list(thought_ids[i : i + chunk_size]),
                edge_ids=list(edge_ids[i : i + chunk_size]),
            )
        )[0]
        thoughts.update(row["thought_ids"])
        embedded.update(row["embedded_ids"])
        edges.update(row["edge_ids"])
    return thoughts, embedded, edges


@dataclass(frozen=True)
class _Written:
    """What :func:`_write_thoughts` did with the file's thoughts, by id."""

    created: set[str]
    replaced: set[str]
    kept: set[str]
    reembedded: int


def _file_vectors(snapshot: EngravaSnapshot, thoughts: Sequence[ThoughtRecord]) -> list[Any]:
    """The file's vector (or None) of each thought, as lists of floats."""
    return [
        None if (v := snapshot.embeddings.get(t.thought_id)) is None else v.tolist()
        for t in thoughts
    ]


async def _write_thoughts(
    store: Neo4jEngravaCore,
    snapshot: EngravaSnapshot,
    had: set[str],
    re_embed: bool,
    chunk_size: int,
) -> _Written:
    """Create the thoughts that are new, replace those the file holds a newer version of
    (``updated_at`` later), and with ``re_embed`` embed the others again."""
    created = [t for t in snapshot.thoughts if t.thought_id not in had]
    for chunk in _chunks(created, chunk_size):
        vectors = None if re_embed else _file_vectors(snapshot, chunk)
        await store.bulk_store(chunk, embeddings=vectors, batch_size=chunk_size)
    replaced: set[str] = set()
    for chunk in _chunks([t for t in snapshot.thoughts if t.thought_id in had], chunk_size):
        vectors = None if re_embed else _file_vectors(snapshot, chunk)
        replaced.update(await store.replace_older(chunk, embeddings=vectors))
    kept = had - replaced
    reembedded = 0
    if re_embed:
        for ids in _chunks(sorted(kept), chunk_size):
            reembedded += len(await store.reembed(ids))
    return _Written({t.thought_id for t in created}, replaced, kept, reembedded)


async def import_snapshot(
    store: Neo4jEngravaCore,
    snapshot: EngravaSnapshot,
    *,
    re_embed: bool = False,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> ImportReport:
    """Write a snapshot's records into ``store``'s namespace, then check the counts.

    Args:
        store: the target store (schema ensured), opened for the target namespace. Its vector
            index must have the snapshot's dimensions unless ``re_embed``.
        snapshot: from :func:`read_engrava`.
        re_embed: ignore the file's vectors and embed every thought of the file with the
            store's provider (when the file's model is not the one queries will be embedded
            with), those already in the namespace too: their stored text is embedded again and
            their vectors replaced (:meth:`~engrava_graph.core.Neo4jEngravaCore.reembed`).
        chunk_size: thoughts or edges per write transaction.

    Returns:
        The report; check :attr:`ImportReport.ok`.

    Raises:
        MigrationInputError: the dimensions differ from the store's, or ``re_embed`` without an
            embedding provider.
    """
    if re_embed and store.embedding_provider is None:
        raise MigrationInputError("re_embed needs a store with an embedding provider")
    if not re_embed and snapshot.dimensions not in (None, store.vector_dimensions):
        raise MigrationInputError(
            f"{snapshot.path} holds {snapshot.dimensions}-dimension embeddings "
            f"({snapshot.embedding_model}) but the store's vector index has "
            f"{store.vector_dimensions}; re-embed them (re_embed) or use a database whose index "
            f"has {snapshot.dimensions} dimensions"
        )
    thought_ids = [t.thought_id for t in snapshot.thoughts]
    edge_ids = [e.edge_id for e in snapshot.edges]
    had, _, had_edges = await _present(store, thought_ids, edge_ids, chunk_size)
    wrote = await _write_thoughts(store, snapshot, had, re_embed, chunk_size)
    edges = [e for e in snapshot.edges if e.edge_id not in had_edges]
    for chunk in _chunks(edges, chunk_size):
        await store.bulk_create_edges(chunk, batch_size=chunk_size)
    found, embedded, found_edges = await _present(store, thought_ids, edge_ids, chunk_size)
    # The vectors this import answers for: the file's, or one per thought with re_embed. A
    # vector on another of its thoughts (an earlier re_embed) is no shortfall of this import.
    vectored = set(thought_ids) if re_embed else snapshot.embeddings.keys()
    counts = snapshot.counts
    return ImportReport(
        namespace=store.namespace,
        expected=Counts(counts.thoughts, len(vectored), counts.edges),
        written=Counts(
            len(wrote.created), len(wrote.created & vectored) + wrote.reembedded, len(edges)
        ),
        updated=Counts(len(wrote.replaced), len(wrote.replaced & vectored)),
        skipped=Counts(
            len(wrote.kept),
            len(wrote.kept & vectored) - wrote.reembedded,
            len(had_edges),
        ),
        found=Counts(len(found), len(embedded & vectored), len(found_edges)),
        embedding_model=(
            getattr(store.embedding_provider, "model_name", None)
            if re_embed
            else snapshot.embedding_model
        ),
        dropped=dict(snapshot.dropped),
    )
