"""Neo4jEngravaCore: the thought-graph store of spec 003, native on Neo4j.

The async API and its names follow the peer package ``engrava`` (``SqliteEngravaCore``): thoughts,
edges, lifecycle, search (``search_fts``, ``search_similar``, ``search_hybrid``, ``recall``),
access telemetry, ``max_cycle``. A store is opened for one namespace; nothing it does crosses it.
Every statement comes from ``cypher/``; writes run in managed transactions. Embedding-provider
calls (synchronous, CPU-bound) run on a worker thread, never on the event loop
(:func:`~engrava_graph.embeddings.base.embed_off_loop`), and always before anything is written.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from neo4j.exceptions import ConstraintError
from pydantic import ValidationError

from engrava_graph import conversations
from engrava_graph.access import AccessBuffer
from engrava_graph.dreaming import consolidate as dreaming
from engrava_graph.dreaming import hygiene
from engrava_graph.dreaming.config import DreamingConfig, HygienePolicy
from engrava_graph.dreaming.gates import require_cycle
from engrava_graph.dreaming.reflections import search_reflections
from engrava_graph.embeddings.base import (
    NORM_RULE,
    EmbeddingProvider,
    embed_off_loop,
    norm_problem,
)
from engrava_graph.graph import schema
from engrava_graph.graph.executor import GraphExecutor, run_in
from engrava_graph.graph.mapping import (
    edge_from_properties,
    record_properties,
    removed_meta_keys,
    thought_from_properties,
)
from engrava_graph.graph.registry import cypher
from engrava_graph.graph.search_arms import SearchArms
from engrava_graph.model.bounds import scalar_problem
from engrava_graph.model.cycles import CycleProvider, resolve_cycle
from engrava_graph.model.enums import (
    EdgeDirection,
    EdgeType,
    KnowledgeSource,
    LifecycleStatus,
    NodeLabel,
    ThoughtType,
)
from engrava_graph.model.errors import (
    DuplicateEdgeError,
    HygienePolicyMissingError,
    DuplicateThoughtError,
    EdgeNotFoundError,
    InvalidTransitionError,
    ReferentialIntegrityError,
    StaleDataError,
    ThoughtNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.namespace import (
    DEFAULT_NAMESPACE,
    fulltext_namespace_token,
    validate_namespace,
)
from engrava_graph.model.records import MAX_TTL_SECONDS, EdgeRecord, ThoughtRecord, content_hash
from engrava_graph.model.search import HybridSearchResult
from engrava_graph.model.temporal import ValidTimeFilter, from_epoch_millis
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.entities import extract_entities
from engrava_graph.retrieval.deps import CycleDeps
from engrava_graph.retrieval.orchestrator import RetrievalCycle
from engrava_graph.retrieval.request import RetrieveRequest
from engrava_graph.retrieval.results import Explanation, RetrievalResponse
from engrava_graph.retrieval.fusion import (
    SearchConfig,
    fuse,
    min_max,
    priority_scores,
    redistribute,
    resolve_recency,
)

Q = {name: cypher(name) for name in (
    "thoughts/create", "thoughts/existing_ids", "thoughts/dedup_confirm", "thoughts/get",
    "thoughts/get_many", "thoughts/get_revision", "thoughts/update", "thoughts/delete",
    "thoughts/list", "thoughts/count", "thoughts/get_embedding", "thoughts/record_access",
    "thoughts/max_cycle", "edges/preflight", "edges/create", "edges/get", "edges/for_thought",
    "edges/list", "edges/update", "edges/delete", "edges/bulk_preflight", "edges/bulk_create",
    "namespaces/ensure", "namespaces/exists", "namespaces/get", "namespaces/annotate",
    "namespaces/delete_node", "search/fusion_signals", "search/recent", "retrieval/embeddings",
)}
_DELETE_BATCH = {label: cypher("namespaces/delete_batch", label=label) for label in NodeLabel}

_UPDATE_RETRIES = 3
_NAMESPACE_OWN_KEYS = frozenset({"name", "created_at"})
_suppress_access: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "engrava_graph_suppress_access", default=False
)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _embed_input(thought: ThoughtRecord) -> str:
    """What is embedded: ``content`` when it starts with ``essence``, else both (as the peer does)."""
    if thought.content.strip().startswith(thought.essence.strip()):
        return thought.content
    return f"{thought.essence}\n{thought.content}"


def _validated(model: type, data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValidationFailedError(str(exc), errors=exc.errors(include_url=False)) from exc


def _evolved(record: Any, changes: dict[str, Any]) -> Any:
    """``record.evolve(**changes)`` with validation failures as :class:`ValidationFailedError`
    (an :class:`InvalidTransitionError` passes through unchanged)."""
    try:
        return record.evolve(**changes)
    except InvalidTransitionError:
        raise
    except ValidationError as exc:
        raise ValidationFailedError(str(exc), errors=exc.errors(include_url=False)) from exc
    except ValueError as exc:
        raise ValidationFailedError(str(exc)) from exc


def _raise_edge_problem(props: dict[str, Any], check: dict[str, Any]) -> None:
    """Raise the error :meth:`Neo4jEngravaCore.create_edge` raises for a failed preflight row
    (``check``: ``from_exists``, ``to_exists``, ``id_taken``, ``triple_taken``)."""
    missing = [i for i, ok in ((props["from_thought_id"], check["from_exists"]),
                               (props["to_thought_id"], check["to_exists"])) if not ok]
    if missing:
        raise ReferentialIntegrityError(missing)
    raise DuplicateEdgeError(from_thought_id=props["from_thought_id"],
                             to_thought_id=props["to_thought_id"], edge_type=props["edge_type"],
                             edge_id=props["edge_id"] if check["id_taken"] else None)


class Neo4jEngravaCore:
    """The 003 thought-graph store on Neo4j, scoped to one namespace.

    Args:
        executor: the connection (owned: ``close()`` closes it).
        namespace: 1-64 of ``[A-Za-z0-9_-]``; default ``"default"``.
        embedding_provider: turns text into vectors; None = keyword search only (spec 003).
        auto_embed: embed thoughts on create/update when a provider is set.
        cycle_provider: default cognitive cycle for search/consolidate when none is passed.
        access_tracking_enabled: record implicit accesses into the bounded buffer.
        search_config: hybrid-search defaults.
        retrieval_config: constants of the 000 retrieval cycle.
        vector_dimensions: index dimensions when there is no provider (default 384).
        clock: returns "now" (aware UTC) for write stamps, expiry and access times; ranking never
            reads it (callers pass ``recency_now`` / ``now``).
        entity_extractor: text -> entity names for ``MENTIONS`` links (default: rule-based).
        dreaming_config: defaults of ``consolidate`` (default: :class:`DreamingConfig`).
        hygiene_policy: the forgetting policy of ``run_hygiene``; None = no hygiene.

    Raises:
        InvalidNamespaceError: a bad namespace.

    Examples:
        >>> async with Neo4jEngravaCore.from_uri("bolt://127.0.0.1:7687",  # doctest: +SKIP
        ...                                      auth=("neo4j", "pw")) as store:
        ...     await store.ensure_schema()
    """

    def __init__(self, executor: GraphExecutor, *, namespace: str = DEFAULT_NAMESPACE,
                 embedding_provider: EmbeddingProvider | None = None, auto_embed: bool = True,
                 cycle_provider: CycleProvider | None = None,
                 access_tracking_enabled: bool = False,
                 search_config: SearchConfig | None = None,
                 retrieval_config: RetrievalConfig | None = None, vector_dimensions: int = 384,
                 clock: Callable[[], datetime] = _utcnow,
                 entity_extractor: Callable[[str], list[str]] = extract_entities,
                 dreaming_config: DreamingConfig | None = None,
                 hygiene_policy: HygienePolicy | None = None) -> None:
        self.executor = executor
        self.dreaming_config = dreaming_config or DreamingConfig()
        self.hygiene_policy = hygiene_policy
        self.namespace = validate_namespace(namespace)
        self.embedding_provider = embedding_provider
        self.auto_embed = auto_embed
        self.cycle_provider = cycle_provider
        self.access_tracking_enabled = access_tracking_enabled
        self.search_config = search_config or SearchConfig()
        self.vector_dimensions = (embedding_provider.dimensions if embedding_provider
                                  else vector_dimensions)
        self._clock = clock
        self._extract_entities = entity_extractor
        self._ns_token = fulltext_namespace_token(self.namespace)
        self._access = AccessBuffer()
        self._arms = SearchArms(executor, self.namespace, self.search_config)
        self.retrieval_config = retrieval_config or RetrievalConfig()
        self._cycle = RetrievalCycle(CycleDeps(
            executor=executor, namespace=self.namespace, arms=self._arms,
            embed=self.embed_queries, track=self._track, scope=self.retrievable_scope,
            config=self.retrieval_config, search_config=self.search_config,
            cycle_provider=cycle_provider))

    # ----------------------------------------------------------------- lifecycle of the store
    @classmethod
    def from_uri(cls, uri: str, auth: tuple[str, str] | None = None, database: str | None = None,
                 **options: Any) -> Neo4jEngravaCore:
        """Open a store on a Neo4j URI (``bolt://`` or ``neo4j://`` for clusters).

        Args:
            uri: the server URI.
            auth: ``(user, password)``.
            database: database name; None = the server's default.
            **options: the keyword arguments of :class:`Neo4jEngravaCore`.
        """
        return cls(GraphExecutor.connect(uri, auth, database), **options)

    def for_namespace(self, namespace: str) -> Neo4jEngravaCore:
        """A store on the same connection for another namespace (same provider and options)."""
        return Neo4jEngravaCore(
            self.executor, namespace=namespace, embedding_provider=self.embedding_provider,
            auto_embed=self.auto_embed, cycle_provider=self.cycle_provider,
            access_tracking_enabled=self.access_tracking_enabled,
            search_config=self.search_config, retrieval_config=self.retrieval_config,
            vector_dimensions=self.vector_dimensions, clock=self._clock, entity_extractor=self._extract_entities,
            dreaming_config=self.dreaming_config, hygiene_policy=self.hygiene_policy,
        )

    async def __aenter__(self) -> Neo4jEngravaCore:
        await self.executor.verify()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def ensure_schema(self) -> int:
        """Create constraints and indexes idempotently and register this namespace.

        Returns:
            The schema version.

        Raises:
            EmbeddingDimensionMismatchError: the vector index has other dimensions.
        """
        version = await schema.ensure_schema(self.executor, dimensions=self.vector_dimensions)
        await self.ensure_namespace()
        return version

    async def ensure_namespace(self) -> None:
        """Register this store's namespace (idempotent)."""
        await self.executor.write(Q["namespaces/ensure"], namespace=self.namespace,
                                  now=self._clock())

    async def _register_in(self, tx: Any) -> None:
        """Register this namespace inside a write transaction: a namespace exists exactly when a
        write to it committed (a rejected write registers nothing)."""
        await run_in(tx, Q["namespaces/ensure"], namespace=self.namespace, now=self._clock())

    async def namespace_exists(self) -> bool:
        """Whether this store's namespace is registered."""
        rows = await self.executor.read(Q["namespaces/exists"], namespace=self.namespace)
        return bool(rows[0]["exists"])

    async def namespace_annotations(self) -> dict[str, Any]:
        """The annotations set by :meth:`annotate_namespace` (``{}`` when there are none or the
        namespace is not registered)."""
        rows = await self.executor.read(Q["namespaces/get"], namespace=self.namespace)
        props = rows[0]["properties"] if rows else {}
        return {k: v for k, v in props.items() if k not in _NAMESPACE_OWN_KEYS}

    async def annotate_namespace(self, **annotations: str | int | float | bool | None) -> None:
        """Store scalar key/value annotations on this namespace (registering it when needed),
        e.g. which data set it was loaded from; ``None`` removes a key. They are deleted with
        the namespace.

        Raises:
            ValidationFailedError: a reserved key (``name``, ``created_at``) or a value that is
                not a Neo4j scalar (str, bool, 64-bit int, finite float).
        """
        reserved = sorted(_NAMESPACE_OWN_KEYS & annotations.keys())
        if reserved:
            raise ValidationFailedError(f"namespace annotations cannot set {reserved}")
        bad = {k: problem for k, v in annotations.items() if (problem := scalar_problem(v))}
        if bad:
            raise ValidationFailedError(f"namespace annotations must be Neo4j scalars; {bad}")
        await self.executor.write(Q["namespaces/annotate"], namespace=self.namespace,
                                  now=self._clock(), props=annotations)

    async def delete_namespace(self, *, batch_size: int = 1000) -> None:
        """Delete every node and relationship of this namespace, in batches of ``batch_size``
        rows each committed on its own (``CALL { … } IN TRANSACTIONS``); other namespaces are
        untouched. Re-running after an interruption finishes the job."""
        for label in NodeLabel:
            await self.executor.run_auto_commit(_DELETE_BATCH[label], namespace=self.namespace,
                                                batch_size=batch_size)
        await self.executor.write(Q["namespaces/delete_node"], namespace=self.namespace)

    async def close(self) -> None:
        """Flush the access buffer (best effort) and close the connection."""
        try:
            await self.flush_access_buffer()
        except Exception:  # noqa: BLE001 - spec 003: a flush failure does not prevent closing
            pass
        await self.executor.close()

    # ----------------------------------------------------------------------------- thoughts
    async def _vectors_for(self, thoughts: Sequence[ThoughtRecord],
                           given: Sequence[Sequence[float] | None] | None
                           ) -> list[list[float] | None]:
        """The given vectors (checked), else the provider's (off the event loop), else None."""
        if given is not None:
            if len(given) != len(thoughts):
                raise ValidationFailedError(
                    f"{len(given)} embeddings for {len(thoughts)} thoughts")
            return [None if v is None else self._check_dims(v) for v in given]
        if self.embedding_provider is None or not self.auto_embed:
            return [None] * len(thoughts)
        vectors = await embed_off_loop(self.embedding_provider,
                                       [_embed_input(t) for t in thoughts])
        return [row.tolist() for row in vectors]

    def _check_dims(self, vector: Sequence[float]) -> list[float]:
        """``vector`` as floats, if it has the store's length, finite items and a usable norm
        (:func:`~engrava_graph.embeddings.base.norm_problem`); else ValidationFailedError."""
        values = [float(x) for x in vector]
        if len(values) != self.vector_dimensions or not np.isfinite(values).all():
            problem = (f"an embedding must be {self.vector_dimensions} finite floats, got "
                       f"{len(values)} values")
        elif norm_problem(values) is not None:
            problem = NORM_RULE
        else:
            return values
        raise ValidationFailedError(problem, errors=[{"loc": ("embedding",), "msg": problem,
                                                      "type": "value_error"}])

    def _row(self, thought: ThoughtRecord, vector: list[float] | None) -> dict[str, Any]:
        props = {k: v for k, v in record_properties(thought).items() if v is not None}
        props["content_hash"] = content_hash(thought.content)
        props["revision"] = 0
        text = thought.essence if thought.content == thought.essence else (
            f"{thought.essence}\n{thought.content}")
        return {"label": thought.thought_type.label, "props": props, "embedding": vector,
                "entities": self._extract_entities(text), "tags": thought.tags}

    def _stamp(self, thought: ThoughtRecord, now: datetime,
               expires_after_seconds: float | None) -> ThoughtRecord:
        if not isinstance(thought, ThoughtRecord):
            raise ValidationFailedError(f"expected a ThoughtRecord, got {type(thought).__name__}")
        update: dict[str, Any] = {"created_at": thought.created_at or now,
                                  "updated_at": thought.updated_at or now}
        if expires_after_seconds is not None:
            if not 0 < expires_after_seconds <= MAX_TTL_SECONDS:
                raise ValidationFailedError(
                    f"expires_after_seconds must be > 0 and at most {MAX_TTL_SECONDS} (100 years), "
                    f"got {expires_after_seconds}")
            update["expires_at"] = now + timedelta(seconds=expires_after_seconds)
        return thought.model_copy(update=update)

    async def create_thought(self, thought: ThoughtRecord, *, deduplicate: bool = False,
                             expires_after_seconds: float | None = None,
                             embedding: Sequence[float] | None = None) -> ThoughtRecord:
        """Persist a new thought (and its embedding, entities and tags) in one transaction,
        which also registers the namespace (nothing is registered when it fails).

        Args:
            thought: the record; ``created_at``/``updated_at`` are stamped when unset.
            deduplicate: when a thought with the same ``content_hash`` exists in the namespace,
                add one to its ``confirmation_count`` and return it instead (atomic under
                concurrent callers).
            expires_after_seconds: TTL in seconds from now, at most 100 years (sets
                ``expires_at``).
            embedding: a vector to store instead of auto-embedding.

        Returns:
            The stored record (or the confirmed existing one when deduplicating).

        Raises:
            DuplicateThoughtError: the id exists in the namespace.
            ValidationFailedError: a bad argument or embedding.
            EmbeddingError: the provider failed.
        """
        stamped = self._stamp(thought, self._clock(), expires_after_seconds)
        vector = (await self._vectors_for([stamped],
                                          None if embedding is None else [embedding]))[0]
        row = self._row(stamped, vector)

        async def work(tx: Any) -> ThoughtRecord:
            await self._register_in(tx)
            if deduplicate:
                hit = await run_in(tx, Q["thoughts/dedup_confirm"], namespace=self.namespace,
                                   content_hash=row["props"]["content_hash"], now=self._clock())
                if hit:
                    return thought_from_properties(hit[0]["thought"])
            await run_in(tx, Q["thoughts/create"], namespace=self.namespace,
                         ns_token=self._ns_token, rows=[row])
            return stamped

        try:
            return await self.executor.transaction(work)
        except ConstraintError as exc:
            raise DuplicateThoughtError(stamped.thought_id) from exc

    async def bulk_store(self, thoughts: Sequence[ThoughtRecord], *,
                         embeddings: Sequence[Sequence[float] | None] | None = None,
                         batch_size: int = 1000) -> list[ThoughtRecord]:
        """Persist many thoughts in ONE transaction (all or nothing), written in UNWIND batches;
        the same transaction registers the namespace.

        All auto-embeddings are computed in one batched provider call (on a worker thread)
        before the transaction.
        For very large loads call it per chunk of about 10k thoughts to bound Neo4j's
        transaction memory.

        Args:
            thoughts: the records (ids unique among them and new to the namespace).
            embeddings: optional vectors, one per thought (None entries auto-embed nothing).
            batch_size: rows per UNWIND statement.

        Returns:
            The stored records, in input order.

        Raises:
            DuplicateThoughtError: an id repeats in the input or exists in the namespace.
            EmbeddingError: the provider failed (nothing is written).
        """
        now = self._clock()
        stamped = [self._stamp(t, now, None) for t in thoughts]
        ids = [t.thought_id for t in stamped]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise DuplicateThoughtError(dup)
        taken = await self.executor.read(Q["thoughts/existing_ids"], namespace=self.namespace,
                                         thought_ids=ids)
        if taken:
            raise DuplicateThoughtError(taken[0]["thought_id"])
        vectors = await self._vectors_for(stamped, embeddings)
        rows = [self._row(t, v) for t, v in zip(stamped, vectors, strict=True)]

        async def work(tx: Any) -> None:
            await self._register_in(tx)
            for start in range(0, len(rows), batch_size):
                await run_in(tx, Q["thoughts/create"], namespace=self.namespace,
                             ns_token=self._ns_token, rows=rows[start:start + batch_size])

        try:
            await self.executor.transaction(work)
        except ConstraintError as exc:
            raise DuplicateThoughtError("(one of the batch)") from exc
        return stamped

    async def add_messages(self, conversation_id: str,
                           messages: Sequence[conversations.Message | Mapping[str, Any]], *,
                           source: str = "conversation") -> list[conversations.StoredMessage]:
        """Store a conversation's messages: one OBSERVATION thought per message (with its
        ``conversation_id``, ``position``, ``speaker``, ``message_id``, ``valid_from`` = its
        timestamp), one NOTE thought per conversation, MESSAGE_OF edges; idempotent on re-send,
        one transaction per call (see :mod:`engrava_graph.conversations`).

        Args:
            conversation_id: the conversation, 1-256 characters (e.g. ``"session_3"``).
            messages: :class:`~engrava_graph.conversations.Message` objects or mappings with
                ``content``, ``speaker`` and/or ``role``, optional ``timestamp``, ``metadata``,
                ``message_id``; in conversation order (new ones continue after the last
                stored position).
            source: the thoughts' ``source``.

        Returns:
            One :class:`~engrava_graph.conversations.StoredMessage` per message, in input
            order (``created=False`` for a re-send).

        Raises:
            ValidationFailedError: bad arguments (the message index in ``errors[].loc``).
            MessageConflictError: a stored message id comes with other content.
            StaleDataError: concurrent calls kept moving the conversation.
            EmbeddingError: the provider failed (nothing is written).
        """
        return await conversations.add_messages(self, conversation_id, messages, source=source)

    async def remember(self, text: str, *, metadata: dict[str, Any] | None = None,
                       deduplicate: bool = False, source: str = "remember") -> ThoughtRecord:
        """Store a bare string as a NOTE (essence = its first 200 characters, content = all).

        Raises:
            ValidationFailedError: empty text or bad metadata.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValidationFailedError("remember() needs non-empty text")
        record = _validated(ThoughtRecord, {
            "thought_type": ThoughtType.NOTE, "essence": text.strip()[:200], "content": text,
            "source": source, "metadata": metadata or {},
        })
        return await self.create_thought(record, deduplicate=deduplicate)

    async def get_thought(self, thought_id: str) -> ThoughtRecord | None:
        """The thought, or None. Counts an implicit access when tracking is on."""
        rows = await self.executor.read(Q["thoughts/get"], namespace=self.namespace,
                                        thought_id=thought_id)
        if not rows:
            return None
        self._track([thought_id])
        return thought_from_properties(rows[0]["thought"])

    async def get_thoughts(self, thought_ids: Sequence[str]) -> dict[str, ThoughtRecord]:
        """``{thought_id: record}`` for the ids that exist (no access is recorded)."""
        rows = await self.executor.read(Q["thoughts/get_many"], namespace=self.namespace,
                                        thought_ids=list(thought_ids))
        records = (thought_from_properties(r["thought"]) for r in rows)
        return {r.thought_id: r for r in records}

    async def _require(self, thought_id: str) -> tuple[ThoughtRecord, dict[str, Any], int]:
        rows = await self.executor.read(Q["thoughts/get_revision"], namespace=self.namespace,
                                        thought_id=thought_id)
        if not rows:
            raise ThoughtNotFoundError(thought_id)
        props = rows[0]["thought"]
        return thought_from_properties(props), props, int(rows[0]["revision"] or 0)

    async def update_thought(self, thought_id: str, **changes: Any) -> ThoughtRecord:
        """Write a new version of a thought with ``changes`` applied.

        ``updated_at`` is stamped; ``updated_cycle`` must stay >= ``created_cycle``; a lifecycle
        change given as a :class:`LifecycleStatus` member must be a legal step. The embedding is
        recomputed when essence or content change. The write is atomic: if another writer
        changed the thought in between, this update re-reads and re-applies (3 tries).

        Raises:
            ThoughtNotFoundError: no such thought.
            InvalidTransitionError: an illegal lifecycle jump.
            ValidationFailedError: an unknown field or invalid value.
            StaleDataError: still conflicting after 3 tries.
            EmbeddingError: the provider failed (nothing is written).
        """
        if "thought_id" in changes and changes["thought_id"] != thought_id:
            raise ValidationFailedError("thought_id cannot change")
        for _ in range(_UPDATE_RETRIES):
            current, props, revision = await self._require(thought_id)
            new = _evolved(current, {"updated_at": self._clock(), **changes})
            text_changed = (new.essence, new.content) != (current.essence, current.content)
            vector = (await self._vectors_for([new], None))[0] if text_changed else None
            row = self._row(new, vector)
            new_props = record_properties(new)
            new_props.pop("created_at")
            rows = await self.executor.write(
                Q["thoughts/update"], namespace=self.namespace, thought_id=thought_id,
                expected_revision=revision, props={**removed_meta_keys(props, new_props),
                                                   **new_props},
                old_label=current.thought_type.label, new_label=new.thought_type.label,
                embedding=vector, entities=row["entities"], tags=new.tags,
            )
            if rows:
                return thought_from_properties(rows[0]["thought"])
        raise StaleDataError(thought_id)

    async def delete_thought(self, thought_id: str) -> bool:
        """Delete a thought with its edges, entity/tag links and embedding, in one transaction.

        Returns:
            True when it existed.
        """
        rows = await self.executor.write(Q["thoughts/delete"], namespace=self.namespace,
                                         thought_id=thought_id)
        return bool(rows[0]["deleted"])

    async def restore_thought(self, thought_id: str, *,
                              current_cycle: int | None = None) -> ThoughtRecord:
        """ARCHIVED -> ACTIVE, clearing the hygiene archive stamps (spec 003, "Lifecycle").

        Args:
            thought_id: the thought.
            current_cycle: when given, ``updated_cycle`` becomes at least this cycle.

        Raises:
            ThoughtNotFoundError: no such thought.
            InvalidTransitionError: it is not ARCHIVED.
        """
        current, _, _ = await self._require(thought_id)
        if current.lifecycle_status is not LifecycleStatus.ARCHIVED:
            status = current.lifecycle_status.value
            raise InvalidTransitionError(
                entity_type="LifecycleStatus", current_state=status,
                target_state=LifecycleStatus.ACTIVE.value,
                reason=(f"restore_thought brings back an ARCHIVED thought; {thought_id!r} is "
                        f"{status}, so there is nothing to restore (to change its status, use "
                        f"update_thought with an allowed step)"))
        changes: dict[str, Any] = {"lifecycle_status": LifecycleStatus.ACTIVE,
                                   "archived_at": None, "archived_at_cycle": None}
        if current_cycle is not None:
            changes["updated_cycle"] = max(current.updated_cycle, current_cycle)
        return await self.update_thought(thought_id, **changes)

    def _list_params(self, *, priority: str | None, lifecycle_status: str | None,
                     thought_type: str | None, min_cycle: int | None, max_cycle: int | None,
                     visibility: str | None, exclude_visibility: str | None,
                     include_expired: bool, include_archived: bool,
                     filters: MetadataFilter | None,
                     valid_time: ValidTimeFilter | None) -> dict[str, Any]:
        plain = {"priority": priority, "lifecycle_status": lifecycle_status,
                 "thought_type": thought_type, "visibility": visibility,
                 "exclude_visibility": exclude_visibility}
        params: dict[str, Any] = {k: (None if v is None else str(getattr(v, "value", v)))
                                  for k, v in plain.items()}
        params.update(
            namespace=self.namespace, min_cycle=min_cycle, max_cycle=max_cycle,
            include_expired=include_expired, include_archived=include_archived,
            now=self._clock(), meta_filters=(filters or MetadataFilter()).to_params(),
            vt_kind=None, vt_start=None, vt_end=None,
        )
        if valid_time is not None:
            params.update(valid_time.cypher_params())
        return params

    async def list_thoughts(self, *, priority: str | None = None,
                            lifecycle_status: str | None = None, thought_type: str | None = None,
                            min_cycle: int | None = None, max_cycle: int | None = None,
                            visibility: str | None = None, exclude_visibility: str | None = None,
                            include_expired: bool = False, include_archived: bool = True,
                            filters: MetadataFilter | None = None,
                            valid_time: ValidTimeFilter | None = None,
                            after_id: str | None = None, limit: int = 50,
                            offset: int = 0) -> list[ThoughtRecord]:
        """Thoughts matching every given filter, ordered by ``thought_id``.

        Archived thoughts are listed (listing is not ranked retrieval, spec 003); expired ones
        are not unless ``include_expired``. ``after_id`` is a keyset cursor: pass the last id of
        the previous page.

        Raises:
            ValidationFailedError: ``limit`` outside 1..10000 or a negative offset.
        """
        if not 1 <= limit <= 10_000 or offset < 0:
            raise ValidationFailedError("limit must be 1..10000 and offset >= 0")
        params = self._list_params(
            priority=priority, lifecycle_status=lifecycle_status, thought_type=thought_type,
            min_cycle=min_cycle, max_cycle=max_cycle, visibility=visibility,
            exclude_visibility=exclude_visibility, include_expired=include_expired,
            include_archived=include_archived, filters=filters, valid_time=valid_time)
        rows = await self.executor.read(Q["thoughts/list"], after_id=after_id, offset=offset,
                                        limit=limit, **params)
        return [thought_from_properties(r["thought"]) for r in rows]

    async def count_thoughts(self, *, priority: str | None = None,
                             lifecycle_status: str | None = None, thought_type: str | None = None,
                             min_cycle: int | None = None, max_cycle: int | None = None,
                             visibility: str | None = None,
                             exclude_visibility: str | None = None,
                             include_expired: bool = False, include_archived: bool = True,
                             filters: MetadataFilter | None = None,
                             valid_time: ValidTimeFilter | None = None) -> int:
        """How many thoughts ``list_thoughts`` would return with the same filters (no paging)."""
        params = self._list_params(
            priority=priority, lifecycle_status=lifecycle_status, thought_type=thought_type,
            min_cycle=min_cycle, max_cycle=max_cycle, visibility=visibility,
            exclude_visibility=exclude_visibility, include_expired=include_expired,
            include_archived=include_archived, filters=filters, valid_time=valid_time)
        rows = await self.executor.read(Q["thoughts/count"], **params)
        return int(rows[0]["n"])

    async def get_embedding(self, thought_id: str) -> list[float] | None:
        """The stored vector of a thought, or None (no thought or no embedding)."""
        rows = await self.executor.read(Q["thoughts/get_embedding"], namespace=self.namespace,
                                        thought_id=thought_id)
        return None if not rows or rows[0]["embedding"] is None else list(rows[0]["embedding"])

    async def get_embeddings(self, thought_ids: Sequence[str]) -> dict[str, list[float]]:
        """``{thought_id: vector}`` for the ids that exist and have an embedding (one read)."""
        rows = await self.executor.read(Q["retrieval/embeddings"], namespace=self.namespace,
                                        thought_ids=list(thought_ids))
        return {r["thought_id"]: list(r["embedding"]) for r in rows
                if r["embedding"] is not None}

    async def max_cycle(self) -> int:
        """The namespace's cycle high-water mark: max over thoughts' ``updated_cycle`` and edges'
        ``created_cycle``; 0 when empty. Resume a counter at ``max_cycle() + 1``."""
        rows = await self.executor.read(Q["thoughts/max_cycle"], namespace=self.namespace)
        return int(rows[0]["max_cycle"])

    # ------------------------------------------------------------------------- access
    def _track(self, thought_ids: Sequence[str]) -> None:
        if self.access_tracking_enabled and not _suppress_access.get():
            self._access.add(thought_ids)

    def suppress_access_tracking(self) -> contextvars.Token[bool]:
        """Stop implicit access tracking in the current async context (maintenance, read-only
        views); undo with ``resume_access_tracking(token)``."""
        return _suppress_access.set(True)

    @staticmethod
    def resume_access_tracking(token: contextvars.Token[bool]) -> None:
        """Undo :meth:`suppress_access_tracking`."""
        _suppress_access.reset(token)

    async def record_access(self, thought_id: str) -> None:
        """Count one access now (immediate write; not buffered).

        Raises:
            ThoughtNotFoundError: no such thought.
        """
        rows = await self.executor.write(Q["thoughts/record_access"], namespace=self.namespace,
                                         rows=[{"thought_id": thought_id, "count": 1}],
                                         now=self._clock())
        if not rows or not rows[0]["updated"]:
            raise ThoughtNotFoundError(thought_id)

    async def flush_access_buffer(self) -> int:
        """Write the buffered accesses in one batched update.

        Returns:
            The number of distinct ids drained (not the total count).
        """
        rows = self._access.drain()
        if not rows:
            return 0
        try:
            await self.executor.write(Q["thoughts/record_access"], namespace=self.namespace,
                                      rows=rows, now=self._clock())
        except Exception:
            self._access.restore(rows)
            raise
        return len(rows)

    # ---------------------------------------------------------------------------- edges
    async def create_edge(self, edge: EdgeRecord) -> EdgeRecord:
        """Create a typed edge between two thoughts of this namespace.

        Raises:
            ReferentialIntegrityError: an endpoint does not exist in the namespace.
            DuplicateEdgeError: the id is taken, or (from, to, type) exists (also under
                concurrent writers: Neo4j's constraint decides).
        """
        if not isinstance(edge, EdgeRecord):
            raise ValidationFailedError(f"expected an EdgeRecord, got {type(edge).__name__}")
        stamped = edge.model_copy(update={"created_at": edge.created_at or self._clock()})
        keys = {"namespace": self.namespace, "from_thought_id": edge.from_thought_id,
                "to_thought_id": edge.to_thought_id}
        dup = DuplicateEdgeError(from_thought_id=edge.from_thought_id,
                                 to_thought_id=edge.to_thought_id, edge_type=edge.edge_type.value)

        async def work(tx: Any) -> EdgeRecord:
            check = (await run_in(tx, Q["edges/preflight"], edge_id=edge.edge_id,
                                  edge_type=edge.edge_type.value, **keys))[0]
            if not (check["from_exists"] and check["to_exists"]) or check["id_taken"] or (
                    check["triple_taken"]):
                _raise_edge_problem(record_properties(edge), check)
            rows = await run_in(tx, Q["edges/create"], edge_type=edge.edge_type.value,
                                props=record_properties(stamped), **keys)
            return edge_from_properties(rows[0]["edge"])

        try:
            return await self.executor.transaction(work)
        except ConstraintError as exc:
            raise dup from exc

    async def bulk_create_edges(self, edges: Sequence[EdgeRecord], *,
                                batch_size: int = 1000) -> list[EdgeRecord]:
        """Create many edges in ONE transaction (all or nothing), with the rules of
        :meth:`create_edge`, checked and written in UNWIND batches of ``batch_size``.

        Returns:
            The stored records (``created_at`` stamped), in input order.

        Raises:
            ReferentialIntegrityError: an endpoint does not exist in the namespace (the first
                offending edge's missing ids).
            DuplicateEdgeError: an edge id or a (from, to, type) triple repeats in the input or
                exists in the namespace.
            ValidationFailedError: an element is not an EdgeRecord.
        """
        now = self._clock()
        stamped: list[EdgeRecord] = []
        seen_ids: set[str] = set()
        seen_triples: set[tuple[str, str, str]] = set()
        for edge in edges:
            if not isinstance(edge, EdgeRecord):
                raise ValidationFailedError(f"expected an EdgeRecord, got {type(edge).__name__}")
            triple = (edge.from_thought_id, edge.to_thought_id, edge.edge_type.value)
            if edge.edge_id in seen_ids or triple in seen_triples:
                raise DuplicateEdgeError(from_thought_id=triple[0], to_thought_id=triple[1],
                                         edge_type=triple[2], edge_id=(
                                             edge.edge_id if edge.edge_id in seen_ids else None))
            seen_ids.add(edge.edge_id)
            seen_triples.add(triple)
            stamped.append(edge.model_copy(update={"created_at": edge.created_at or now}))
        rows = [{"edge_type": e.edge_type.value, "props": record_properties(e)} for e in stamped]
        batches = [rows[i:i + batch_size] for i in range(0, len(rows), batch_size)]

        async def work(tx: Any) -> None:
            for batch in batches:
                problems = await run_in(tx, Q["edges/bulk_preflight"], namespace=self.namespace,
                                        rows=batch)
                if problems:
                    _raise_edge_problem(batch[problems[0]["i"]]["props"], problems[0])
            for batch in batches:
                await run_in(tx, Q["edges/bulk_create"], namespace=self.namespace, rows=batch)

        if rows:
            try:
                await self.executor.transaction(work)
            except ConstraintError as exc:
                raise DuplicateEdgeError(from_thought_id="(one of the batch)",
                                         to_thought_id="(one of the batch)",
                                         edge_type="(one of the batch)") from exc
        return stamped

    async def get_edge(self, edge_id: str) -> EdgeRecord | None:
        """The edge with this id, or None."""
        rows = await self.executor.read(Q["edges/get"], namespace=self.namespace, edge_id=edge_id)
        return edge_from_properties(rows[0]["edge"]) if rows else None

    async def get_edges(self, thought_id: str, *,
                        direction: EdgeDirection | str = EdgeDirection.BOTH) -> list[EdgeRecord]:
        """A thought's edges (``"OUT"``, ``"IN"`` or ``"BOTH"``), oldest first."""
        direction = EdgeDirection(direction)
        rows = await self.executor.read(Q["edges/for_thought"], namespace=self.namespace,
                                        thought_id=thought_id, direction=direction.value)
        return [edge_from_properties(r["edge"]) for r in rows]

    async def list_edges(self, *, edge_type: EdgeType | None = None,
                         source: KnowledgeSource | None = None,
                         filters: MetadataFilter | None = None,
                         limit: int = 5000) -> list[EdgeRecord]:
        """Edges of the namespace by type, source and metadata filter, oldest first."""
        rows = await self.executor.read(
            Q["edges/list"], namespace=self.namespace,
            edge_type=None if edge_type is None else EdgeType(edge_type).value,
            source=None if source is None else KnowledgeSource(source).value,
            meta_filters=(filters or MetadataFilter()).to_params(), limit=limit)
        return [edge_from_properties(r["edge"]) for r in rows]

    async def update_edge(self, edge_id: str, **changes: Any) -> EdgeRecord:
        """Change an edge's weight, confidence, validity or metadata (not its endpoints or type).

        Raises:
            EdgeNotFoundError: no such edge.
            ValidationFailedError: a bad value or a fixed field.
        """
        current = await self.get_edge(edge_id)
        if current is None:
            raise EdgeNotFoundError(edge_id)
        new = _evolved(current, changes)
        old_props = record_properties(current)
        new_props = record_properties(new)
        rows = await self.executor.write(Q["edges/update"], namespace=self.namespace,
                                         edge_id=edge_id,
                                         props={**removed_meta_keys(old_props, new_props),
                                                **new_props})
        if not rows:
            raise EdgeNotFoundError(edge_id)
        return edge_from_properties(rows[0]["edge"])

    async def delete_edge(self, edge_id: str) -> bool:
        """Delete an edge; True when it existed."""
        rows = await self.executor.write(Q["edges/delete"], namespace=self.namespace,
                                         edge_id=edge_id)
        return bool(rows[0]["deleted"])

    # --------------------------------------------------------------------------- search
    def retrievable_scope(self, *, include_archived: bool = False,
                          filters: MetadataFilter | None = None,
                          now: datetime | None = None) -> dict[str, Any]:
        """The ``search/_retrievable`` parameters for this namespace; expiry is judged at
        ``now`` (the caller's instant), else at the store clock."""
        return {"namespace": self.namespace, "include_archived": include_archived,
                "now": now or self._clock(),
                "meta_filters": (filters or MetadataFilter()).to_params()}

    async def search_fts(self, query: str, top_k: int = 10, *,
                         include_archived: bool = False) -> list[tuple[str, float]]:
        """Keyword search (Lucene BM25) over essence and content.

        Returns:
            ``(thought_id, score)`` best first; the query is plain text (operators are escaped).
        """
        return await self._arms.fulltext(query, top_k,
                                         self.retrievable_scope(include_archived=include_archived))

    async def search_similar(self, query_vector: Sequence[float], top_k: int = 10,
                             threshold: float = 0.0, *,
                             include_archived: bool = False) -> list[tuple[str, float]]:
        """Vector search by cosine similarity.

        Returns:
            ``(thought_id, cosine in [0, 1])`` best first, at least ``threshold``.

        Raises:
            ValidationFailedError: wrong vector length, a zero or non-finite norm, ``top_k``
                outside 0..1000 (0 gives [], as the peer's), or a threshold outside [0, 1].
        """
        if not 0 <= top_k <= 1000:
            raise ValidationFailedError(f"top_k must be 0..1000, got {top_k}")
        if not 0.0 <= threshold <= 1.0:
            raise ValidationFailedError(f"threshold must be in [0, 1], got {threshold}")
        hits, _ = await self._arms.vector(
            self._check_dims(query_vector), top_k,
            self.retrievable_scope(include_archived=include_archived), threshold=threshold)
        return hits

    async def embed_query(self, text: str) -> list[float] | None:
        """The provider's vector for ``text`` (None without a provider); see
        :meth:`embed_queries`."""
        return (await self.embed_queries([text]))[0]

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float] | None]:
        """The provider's vectors for ``texts``, in one provider call made on a worker thread
        (:func:`~engrava_graph.embeddings.base.embed_off_loop`), so the event loop keeps
        serving other requests meanwhile.

        Args:
            texts: the query texts.

        Returns:
            One vector (``dimensions`` floats) per text, in order; all None without a provider.

        Raises:
            EmbeddingError: the provider failed or broke its contract.
        """
        if self.embedding_provider is None:
            return [None] * len(texts)
        return [row.tolist() for row in await embed_off_loop(self.embedding_provider, texts)]

    async def _query_vector(self, query_text: str,
                            query_vector: Sequence[float] | None) -> list[float] | None:
        """The given vector (checked), else the text's (None for blank text or no provider)."""
        if query_vector is not None:
            return self._check_dims(query_vector)
        return await self.embed_query(query_text) if query_text.strip() else None

    async def search_hybrid(self, query_text: str, query_vector: Sequence[float] | None = None,
                            *, top_k: int = 10, fts_weight: float | None = None,
                            vector_weight: float | None = None,
                            recency_weight: float | None = None,
                            priority_weight: float | None = None,
                            recency_half_life: int | None = None,
                            current_cycle: int | None = None,
                            recency_now: datetime | str | None = None,
                            recency_now_half_life: int | None = None,
                            fts_top_k: int = 50, vector_top_k: int = 50,
                            filters: MetadataFilter | None = None,
                            include_archived: bool = False) -> HybridSearchResult:
        """Hybrid search: keyword + vector + recency + priority, fused (spec 003; peer semantics).

        Each arm fetches ``max(arm_top_k, top_k)`` candidates; signals are normalised to [0, 1]
        (see :mod:`engrava_graph.retrieval.fusion`) and weighted, with the weights of inactive
        signals redistributed. Recency uses exactly one axis: ``current_cycle`` (or the cycle
        provider) or ``recency_now``; with neither it is off. Empty query text falls back to
        the most recently updated thoughts. Each final result counts an implicit access.

        Raises:
            RecencyModeConflictError: both ``current_cycle`` and ``recency_now``.
            InvalidRecencyArgumentError: a malformed ``recency_now`` or half-life.
            CycleProviderError: the provider returned an invalid cycle.
            ValidationFailedError: ``top_k`` outside 1..1000 or a negative weight.
            EmbeddingError: the provider failed on the query text.
        """
        if not 1 <= top_k <= 1000:
            raise ValidationFailedError(f"top_k must be 1..1000, got {top_k}")
        config = self.search_config
        weights = {"fulltext": config.fts_weight if fts_weight is None else fts_weight,
                   "vector": config.vector_weight if vector_weight is None else vector_weight,
                   "recency": config.recency_weight if recency_weight is None else recency_weight,
                   "priority": (config.priority_weight if priority_weight is None
                                else priority_weight)}
        if any(w < 0 for w in weights.values()):
            raise ValidationFailedError("search weights must be >= 0")
        explicit = None if current_cycle is None else resolve_cycle(current_cycle, None)
        provider_cycle = (resolve_cycle(None, self.cycle_provider)
                          if explicit is None and recency_now is None else None)
        recency = resolve_recency(current_cycle=explicit, recency_now=recency_now,
                                  provider_cycle=provider_cycle, config=config,
                                  recency_half_life=recency_half_life,
                                  recency_now_half_life=recency_now_half_life)
        scope = self.retrievable_scope(include_archived=include_archived, filters=filters)
        vector = await self._query_vector(query_text, query_vector)
        if not query_text.strip() and vector is None:
            rows = await self.executor.read(Q["search/recent"], top_k=top_k, **scope)
            ids = [r["thought_id"] for r in rows]
            self._track(ids)
            return HybridSearchResult(results=[(i, 0.0) for i in ids],
                                      recency_axis=recency.axis.value if recency else None)
        fts_call = self._arms.fulltext(query_text, max(fts_top_k, top_k), scope)
        if vector is None:
            fts_hits, vec_hits = await fts_call, []
        else:
            fts_hits, (vec_hits, _) = await asyncio.gather(
                fts_call, self._arms.vector(vector, max(vector_top_k, top_k), scope))
        signals: dict[str, dict[str, float]] = {"fulltext": min_max(dict(fts_hits)),
                                                "vector": dict(vec_hits)}
        active = ["fulltext"] + (["vector"] if vector is not None else [])
        candidate_ids = sorted(set(signals["fulltext"]) | set(signals["vector"]))
        if candidate_ids and (recency is not None or weights["priority"] > 0):
            rows = await self.executor.read(Q["search/fusion_signals"], namespace=self.namespace,
                                            thought_ids=candidate_ids)
            if recency is not None and weights["recency"] > 0:
                signals["recency"] = {r["thought_id"]: recency.score(
                    r["updated_cycle"], from_epoch_millis(r["updated_ms"]),
                    from_epoch_millis(r["created_ms"])) for r in rows}
                active.append("recency")
            if weights["priority"] > 0:
                signals["priority"] = priority_scores(rows)
                active.append("priority")
        ranked = fuse(signals, redistribute(weights, active), top_k)
        self._track([tid for tid, _ in ranked])
        return HybridSearchResult(results=ranked, backends_used=frozenset(active),
                                  recency_axis=recency.axis.value if recency else None)

    async def recall(self, query: str, *, top_k: int = 10, current_cycle: int | None = None,
                     recency_now: datetime | str | None = None,
                     recency_now_half_life: int | None = None,
                     filters: MetadataFilter | None = None,
                     include_archived: bool = False) -> HybridSearchResult:
        """One-call retrieval: :meth:`search_hybrid` with the query text and defaults."""
        return await self.search_hybrid(query, top_k=top_k, current_cycle=current_cycle,
                                        recency_now=recency_now,
                                        recency_now_half_life=recency_now_half_life,
                                        filters=filters, include_archived=include_archived)

    # ------------------------------------------------------------------- the 000 cycle
    async def retrieve(self, query: str, **params: Any) -> RetrievalResponse:
        """Recall memories with the 10-phase cognitive retrieval cycle (spec 000).

        Args:
            query: the question.
            **params: the fields of :class:`~engrava_graph.retrieval.request.RetrieveRequest`:
                ``top_k`` (1-100, default 10), ``pathway`` ("auto" | "exact" | "energy" |
                "attention"), ``min_confidence`` [0, 1], ``metadata_filter`` ({path: value}),
                ``temporal_weight`` / ``causal_weight`` [0, 1], ``spread_depth`` (0-3 hops),
                ``current_cycle`` (cycles) | ``recency_now`` (instant), ``now`` (the request's
                clock, for "last Tuesday" and access decay), ``include_archived``.

        Returns:
            Results by confidence (descending) with pathway, per-phase timings (ms),
            candidate counts and the causal links traversed. An empty namespace, registered or
            not, gives no results (a new agent has no memories yet); the REST API and the CLI
            answer 404 for an unregistered one, and :meth:`namespace_exists` tells them apart.

        Raises:
            ValidationFailedError: bad parameters (with per-field ``errors``).
            RecencyModeConflictError: ``current_cycle`` and ``recency_now`` together.
            InvalidFilterError: a bad metadata filter.
            InvalidQueryError: a blank or too long query.
        """
        run = await self._cycle.run(RetrieveRequest.build(query=query, **params))
        return run.response()

    async def explain(self, query: str, level: str = "summary", **params: Any) -> Explanation:
        """Run the cycle for ``query`` and return its internals (spec 000, "Inspecting the
        cycle"): intent, entities, temporal range, pathway scores and choice, candidate counts,
        phase timings, and at ``level="debug"`` every candidate's signals and the phase that
        dropped it. Takes the same ``params`` as :meth:`retrieve`.

        Raises:
            ValidationFailedError: a level other than "summary" or "debug", or bad parameters.
        """
        if level not in ("summary", "debug"):
            raise ValidationFailedError(f"level must be 'summary' or 'debug', got {level!r}")
        run = await self._cycle.run(RetrieveRequest.build(query=query, **params))
        return run.explanation(level)

    # ------------------------------------------------------------------ dreaming and hygiene
    async def consolidate(self, current_cycle: int | None = None, *,
                          config: DreamingConfig | None = None,
                          progress: Callable[[str, int, int], None] | None = None
                          ) -> dreaming.DreamResult:
        """Run one dreaming pass: cluster eligible thoughts into REFLECTIONs (spec 003,
        "Dreaming"; see :mod:`engrava_graph.dreaming.consolidate`).

        The access buffer is flushed first and the pass's own reads record no access. When an
        enabled hygiene policy's ``check_every_n_cycles`` divides the cycle, a hygiene pass runs
        at the end (its result in ``hygiene``), as in the peer.

        Args:
            current_cycle: cycles; else the cycle provider's.
            config: this pass's settings; default the store's ``dreaming_config``.
            progress: ``(phase, done, total)`` callback (phases ``neighbours``, ``clusters``).

        Raises:
            CycleRequiredError: (ValueError) no cycle given and no provider.
            CycleProviderError: the provider returned an invalid cycle.
        """
        cycle = require_cycle(current_cycle, self.cycle_provider, "consolidate()")
        await self.flush_access_buffer()
        policy = self.hygiene_policy or HygienePolicy()
        context = dreaming.DreamContext(
            executor=self.executor, namespace=self.namespace, clock=self._clock,
            extract_entities=self._extract_entities,
            access_tracking_enabled=self.access_tracking_enabled,
            protected_priorities=policy.protected_priorities)
        token = self.suppress_access_tracking()
        try:
            await self.ensure_namespace()
            result = await dreaming.run_pass(context, cycle, config or self.dreaming_config,
                                             progress)
        finally:
            self.resume_access_tracking(token)
        if result.due and policy.enabled and cycle % policy.check_every_n_cycles == 0:
            result = replace(result, hygiene=await self.run_hygiene(cycle))
        return result

    async def run_hygiene(self, current_cycle: int | None = None, *,
                          now: datetime | None = None) -> hygiene.HygieneResult:
        """Run one memory-hygiene pass: archive (reversibly) what the policy selects (see
        :mod:`engrava_graph.dreaming.hygiene`). Does not flush the access buffer first.

        Args:
            current_cycle: cycles; else the cycle provider's.
            now: the instant the wall-clock rules measure against (default: the store clock).

        Returns:
            The archived ids and counts; empty when the policy is disabled (no cycle needed).

        Raises:
            HygienePolicyMissingError: (RuntimeError) the store has no hygiene policy.
            CycleRequiredError: (ValueError) an enabled policy, no cycle given, no provider.
        """
        if self.hygiene_policy is None:
            raise HygienePolicyMissingError()
        if not self.hygiene_policy.enabled:
            return hygiene.HygieneResult()
        cycle = require_cycle(current_cycle, self.cycle_provider, "run_hygiene()")
        return await hygiene.run_hygiene(self.executor, self.namespace, self.hygiene_policy,
                                         cycle, now or self._clock())

    async def search_reflections_only(self, query_text: str,
                                      query_vector: Sequence[float] | None = None, *,
                                      top_k: int = 10,
                                      current_cycle: int | None = None) -> HybridSearchResult:
        """Only REFLECTIONs, ranked by cosine to the query (the peer's method; see
        :mod:`engrava_graph.dreaming.reflections`). Each returned reflection counts an access.

        Raises:
            ValidationFailedError: ``top_k`` outside 1..1000 or a bad vector.
            EmbeddingError: the provider failed on the query text.
        """
        if not 1 <= top_k <= 1000:
            raise ValidationFailedError(f"top_k must be 1..1000, got {top_k}")
        vector = await self._query_vector(query_text, query_vector)
        cycle = resolve_cycle(current_cycle, self.cycle_provider)
        recency = resolve_recency(current_cycle=cycle, recency_now=None, provider_cycle=None,
                                  config=self.search_config)
        result = await search_reflections(self.executor, self.retrievable_scope(), vector, top_k,
                                          recency, self.search_config.recency_weight)
        self._track([tid for tid, _ in result.results])
        return result
