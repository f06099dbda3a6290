"""The store's thoughts area: create, read, update, delete and restore thoughts (listing and
counting: :mod:`engrava_graph.store.listing`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from neo4j.exceptions import ConstraintError
from pydantic import BaseModel, ValidationError

from engrava_graph.graph.executor import run_in
from engrava_graph.graph.mapping import (
    removed_meta_keys,
    thought_from_properties,
    thought_properties,
)
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import cypher
from engrava_graph.model.bounds import VISIBLE_RULE, blank
from engrava_graph.model.enums import LifecycleStatus, ThoughtType
from engrava_graph.model.errors import (
    DuplicateThoughtError,
    InvalidStoredRecordError,
    InvalidTransitionError,
    RepeatedThoughtIdError,
    StaleDataError,
    ThoughtNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.records import MAX_TTL_SECONDS, ThoughtRecord
from engrava_graph.store._base import StoreBase, evolved
from engrava_graph.store.modes import writes

Q = {
    name: cypher(name)
    for name in (
        "thoughts/create",
        "thoughts/dedup_confirm",
        "thoughts/delete",
        "thoughts/existing_ids",
        "thoughts/get",
        "thoughts/get_many",
        "thoughts/get_revision",
        "thoughts/replace_older",
        "thoughts/update",
    )
}

_UPDATE_RETRIES = 3


def _validated(
    model: type[BaseModel], data: dict[str, Any], renamed: dict[str, str] | None = None
) -> Any:
    """``data`` as a ``model``; a refusal as :class:`ValidationFailedError`, its fields named
    as in ``renamed`` (:meth:`ValidationFailedError.from_pydantic`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ValidationFailedError.from_pydantic(exc, renamed=renamed) from exc


class ThoughtsMixin(StoreBase):
    """Thought reads and writes of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    def _row(self, thought: ThoughtRecord, vector: list[float] | None) -> dict[str, Any]:
        props = {k: v for k, v in thought_properties(thought).items() if v is not None}
        props["revision"] = 0
        text = (
            thought.essence
            if thought.content == thought.essence
            else (f"{thought.essence}\n{thought.content}")
        )
        return {
            "label": thought.thought_type.label,
            "props": props,
            "embedding": vector_param(vector),
            "entities": self._extract_entities(text),
        }

    def _stamp(
        self, thought: ThoughtRecord, now: datetime, expires_after_seconds: float | None
    ) -> ThoughtRecord:
        if not isinstance(thought, ThoughtRecord):
            raise ValidationFailedError(f"expected a ThoughtRecord, got {type(thought).__name__}")
        update: dict[str, Any] = {
            "created_at": thought.created_at or now,
            "updated_at": thought.updated_at or now,
        }
        if expires_after_seconds is not None:
            if not 0 < expires_after_seconds <= MAX_TTL_SECONDS:
                raise ValidationFailedError(
                    f"expires_after_seconds must be > 0 and at most {MAX_TTL_SECONDS} (100 years), "
                    f"got {expires_after_seconds}"
                )
            update["expires_at"] = now + timedelta(seconds=expires_after_seconds)
        return thought.model_copy(update=update)

    @writes
    async def create_thought(
        self,
        thought: ThoughtRecord,
        *,
        deduplicate: bool = False,
        expires_after_seconds: float | None = None,
        embedding: Sequence[float] | None = None,
    ) -> ThoughtRecord:
        """Persist a new thought (and its embedding, entities and tags) in one transaction,
        which also registers the namespace (nothing is registered when it fails).

        Args:
            thought: the record; ``created_at``/``updated_at`` are stamped when unset.
            deduplicate: when a thought with the same ``content_hash`` exists in the namespace
                and its valid time covers this one's (``valid_from``/``valid_until``, None =
                open), add one to its ``confirmation_count`` and return it instead (atomic under
                concurrent callers). The same text valid in an interval no existing copy covers
                (2023-01..02, then 2024-05..06) is stored as a new thought, so the fact stays
                answerable in both intervals.
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
        vector = (
            self._check_dims(embedding)
            if embedding is not None
            else (await self._vectors_for([stamped], None))[0]
        )
        row = self._row(stamped, vector)

        async def work(tx: Any) -> ThoughtRecord:
            await self._register_in(tx)
            if deduplicate:
                hit = await run_in(
                    tx,
                    Q["thoughts/dedup_confirm"],
                    namespace=self.namespace,
                    content_hash=row["props"]["content_hash"],
                    now=self._clock(),
                    valid_from=stamped.valid_from,
                    valid_until=stamped.valid_until,
                )
                if hit:
                    return thought_from_properties(hit[0]["thought"])
            await run_in(
                tx,
                Q["thoughts/create"],
                namespace=self.namespace,
                ns_token=self._ns_token,
                rows=[row],
            )
            return stamped

        try:
            return await self.executor.transaction(work)
        except ConstraintError as exc:
            raise DuplicateThoughtError(stamped.thought_id) from exc

    @writes
    async def bulk_store(
        self,
        thoughts: Sequence[ThoughtRecord],
        *,
        embeddings: Sequence[Sequence[float] | None] | None = None,
        batch_size: int = 1000,
    ) -> list[ThoughtRecord]:
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
            RepeatedThoughtIdError: an id repeats in the input (a DuplicateThoughtError too;
                nothing is written).
            DuplicateThoughtError: an id exists in the namespace.
            EmbeddingError: the provider failed (nothing is written).
        """
        now = self._clock()
        stamped = [self._stamp(t, now, None) for t in thoughts]
        ids = [t.thought_id for t in stamped]
        seen: set[str] = set()
        for index, thought_id in enumerate(ids):
            if thought_id in seen:
                raise RepeatedThoughtIdError(thought_id, index)
            seen.add(thought_id)
        taken = await self.executor.read(
            Q["thoughts/existing_ids"], namespace=self.namespace, thought_ids=ids
        )
        if taken:
            first = taken[0]["thought_id"]
            raise DuplicateThoughtError(first, index=ids.index(first))
        vectors = await self._vectors_for(stamped, embeddings)
        rows = [self._row(t, v) for t, v in zip(stamped, vectors, strict=True)]

        async def work(tx: Any) -> None:
            await self._register_in(tx)
            for start in range(0, len(rows), batch_size):
                await run_in(
                    tx,
                    Q["thoughts/create"],
                    namespace=self.namespace,
                    ns_token=self._ns_token,
                    rows=rows[start : start + batch_size],
                )

        try:
            await self.executor.transaction(work)
        except ConstraintError as exc:
            raise DuplicateThoughtError("(one of the batch)") from exc
        return stamped

    @writes
    async def remember(
        self,
        text: str,
        *,
        metadata: dict[str, Any] | None = None,
        deduplicate: bool = False,
        source: str = "remember",
    ) -> ThoughtRecord:
        """Store a bare string as a NOTE (essence = its first 200 characters, content = all).

        Raises:
            ValidationFailedError: blank text (only whitespace and invisible characters:
                :func:`~engrava_graph.model.bounds.blank`), text the record refuses (too long,
                a NUL), named ``text`` (not the essence and content made of it), or bad
                metadata.
        """
        if not isinstance(text, str) or blank(text):
            empty = f"text must not be empty: {VISIBLE_RULE}"
            raise ValidationFailedError(
                f"text: {empty}", errors=[{"loc": ("text",), "msg": empty, "type": "value_error"}]
            )
        record = _validated(
            ThoughtRecord,
            {
                "thought_type": ThoughtType.NOTE,
                "essence": text.strip()[:200],
                "content": text,
                "source": source,
                "metadata": metadata or {},
            },
            renamed={"essence": "text", "content": "text"},
        )
        return await self.create_thought(record, deduplicate=deduplicate)

    async def get_thought(self, thought_id: str) -> ThoughtRecord | None:
        """The thought, or None. Counts an implicit access when tracking is on."""
        rows = await self.executor.read(
            Q["thoughts/get"], namespace=self.namespace, thought_id=thought_id
        )
        if not rows:
            return None
        self._track([thought_id])
        return thought_from_properties(rows[0]["thought"])

    async def get_thoughts(self, thought_ids: Sequence[str]) -> dict[str, ThoughtRecord]:
        """``{thought_id: record}`` for the ids that exist (no access is recorded)."""
        rows = await self.executor.read(
            Q["thoughts/get_many"], namespace=self.namespace, thought_ids=list(thought_ids)
        )
        records = (thought_from_properties(r["thought"]) for r in rows)
        return {r.thought_id: r for r in records}

    async def _require(
        self, thought_id: str, repair: dict[str, Any] | None = None
    ) -> tuple[ThoughtRecord, dict[str, Any], int]:
        """The stored thought, its properties and its revision.

        Args:
            repair: changes about to be applied: when the stored thought is not a valid record
                (edited by hand), those that are record fields stand in for the stored values
                (the update writes them anyway), so that the update can repair it. All of them,
                not only the fields the first error names: an unreadable ``metadata_json``
                fails before the other fields are checked.

        Raises:
            ThoughtNotFoundError: no such thought.
            InvalidStoredRecordError: it is not a valid record, and ``repair`` does not give
                every invalid field a valid value.
        """
        rows = await self.executor.read(
            Q["thoughts/get_revision"], namespace=self.namespace, thought_id=thought_id
        )
        if not rows:
            raise ThoughtNotFoundError(thought_id)
        props = rows[0]["thought"]
        try:
            current = thought_from_properties(props)
        except InvalidStoredRecordError:
            fixes = {k: v for k, v in (repair or {}).items() if k in ThoughtRecord.model_fields}
            if not fixes:
                raise
            current = thought_from_properties(props, fixes)
        return current, props, int(rows[0]["revision"] or 0)

    @writes
    async def update_thought(self, thought_id: str, **changes: Any) -> ThoughtRecord:
        """Write a new version of a thought with ``changes`` applied.

        ``updated_at`` is stamped; ``updated_cycle`` must stay >= ``created_cycle``; a lifecycle
        change given as a :class:`LifecycleStatus` member must be a legal step. The embedding is
        recomputed when essence or content change. The write is atomic: if another writer
        changed the thought in between, this update re-reads and re-applies (3 tries).

        A thought edited by hand in Neo4j into something no write produces (``SET t.content =
        42``) is repaired by an update that gives each of its invalid fields a valid value
        (``content="..."``): those values are read in place of the stored ones.

        Raises:
            ThoughtNotFoundError: no such thought.
            InvalidTransitionError: an illegal lifecycle jump.
            ValidationFailedError: an unknown field or invalid value.
            InvalidStoredRecordError: the stored thought is not a valid record and ``changes``
                leave one of its invalid fields as it is (the error names them).
            StaleDataError: still conflicting after 3 tries.
            EmbeddingError: the provider failed (nothing is written).
        """
        if "thought_id" in changes and changes["thought_id"] != thought_id:
            raise ValidationFailedError("thought_id cannot change")
        for _ in range(_UPDATE_RETRIES):
            current, props, revision = await self._require(thought_id, changes)
            new = evolved(current, {"updated_at": self._clock(), **changes})
            stored_text = (props.get("essence"), props.get("content"))
            text_changed = (new.essence, new.content) != stored_text
            vector = (await self._vectors_for([new], None))[0] if text_changed else None
            row = self._row(new, vector)
            new_props = thought_properties(new)
            new_props.pop("created_at")
            rows = await self.executor.write(
                Q["thoughts/update"],
                namespace=self.namespace,
                thought_id=thought_id,
                expected_revision=revision,
                props={**removed_meta_keys(props, new_props), **new_props},
                old_label=current.thought_type.label,
                new_label=new.thought_type.label,
                embedding=row["embedding"],
                entities=row["entities"],
            )
            if rows:
                return thought_from_properties(rows[0]["thought"])
        raise StaleDataError(thought_id)

    @writes
    async def replace_older(
        self,
        thoughts: Sequence[ThoughtRecord],
        *,
        embeddings: Sequence[Sequence[float] | None] | None = None,
    ) -> list[str]:
        """Write these versions of existing thoughts over the stored ones that are older, as
        they are: every field (``updated_at`` included, not re-stamped) and no lifecycle-step
        check, for a sync from another store whose history they are. One read, the provider's
        call (only for the thoughts replaced), one write; a thought updated meanwhile keeps its
        update.

        Args:
            thoughts: the new versions; left out are those not in the namespace, those without
                ``updated_at`` and those whose stored version is as new or newer.
            embeddings: one vector or None per thought (None removes the stored vector, which
                was made from the old text); when not given, the provider embeds them (no
                vectors without a provider or with ``auto_embed`` off).

        Returns:
            The ids of the thoughts replaced.

        Raises:
            ValidationFailedError: ``embeddings`` is not one per thought, or a vector is not
                ``vector_dimensions`` finite floats.
            EmbeddingError: the provider failed (nothing is written).
        """
        checked = None if embeddings is None else self._checked_embeddings(thoughts, embeddings)
        stored = await self.get_thoughts([t.thought_id for t in thoughts])
        chosen = [
            i
            for i, t in enumerate(thoughts)
            if (old := stored.get(t.thought_id)) is not None
            and t.updated_at is not None
            and old.updated_at is not None
            and old.updated_at < t.updated_at
        ]
        if not chosen:
            return []
        newer = [thoughts[i] for i in chosen]
        vectors = (
            [checked[i] for i in chosen]
            if checked is not None
            else await self._vectors_for(newer, None)
        )
        rows = []
        for thought, vector in zip(newer, vectors, strict=True):
            old = stored[thought.thought_id]
            props = thought_properties(thought)
            rows.append(
                {
                    **self._row(thought, vector),
                    "old_label": old.thought_type.label,
                    "props": {**removed_meta_keys(thought_properties(old), props), **props},
                }
            )
        written = await self.executor.write(
            Q["thoughts/replace_older"], namespace=self.namespace, rows=rows
        )
        return [row["thought_id"] for row in written]

    @writes
    async def delete_thought(self, thought_id: str) -> bool:
        """Delete a thought with its edges, entity/tag links and embedding, in one transaction.

        Returns:
            True when it existed.
        """
        rows = await self.executor.write(
            Q["thoughts/delete"], namespace=self.namespace, thought_id=thought_id
        )
        return bool(rows[0]["deleted"])

    @writes
    async def restore_thought(
        self, thought_id: str, *, current_cycle: int | None = None
    ) -> ThoughtRecord:
        """ARCHIVED -> ACTIVE, clearing the hygiene archive stamps.

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
                entity_type="LifecycleStatus",
                current_state=status,
                target_state=LifecycleStatus.ACTIVE.value,
                reason=(
                    f"restore_thought brings back an ARCHIVED thought; {thought_id!r} is "
                    f"{status}, so there is nothing to restore (to change its status, use "
                    f"update_thought with an allowed step)"
                ),
            )
        changes: dict[str, Any] = {
            "lifecycle_status": LifecycleStatus.ACTIVE,
            "archived_at": None,
            "archived_at_cycle": None,
        }
        if current_cycle is not None:
            changes["updated_cycle"] = max(current.updated_cycle, current_cycle)
        return await self.update_thought(thought_id, **changes)
