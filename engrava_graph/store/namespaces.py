"""The store's namespace area: schema, registration, annotations and deletion of a namespace."""

from __future__ import annotations

from typing import Any

from engrava_graph.graph import schema
from engrava_graph.graph.executor import run_in
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import NodeLabel
from engrava_graph.model.namespace import RESERVED_ANNOTATION_KEYS, validate_annotations
from engrava_graph.store._base import StoreBase
from engrava_graph.store.modes import writes

Q = {
    name: cypher(name)
    for name in (
        "namespaces/annotate",
        "namespaces/delete_node",
        "namespaces/ensure",
        "namespaces/exists",
        "namespaces/get",
    )
}

_DELETE_BATCH = {label: cypher("namespaces/delete_batch", label=label) for label in NodeLabel}


class NamespacesMixin(StoreBase):
    """Schema and namespace lifecycle of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    @writes
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

    @writes
    async def ensure_namespace(self) -> None:
        """Register this store's namespace (idempotent)."""
        await self.executor.write(
            Q["namespaces/ensure"], namespace=self.namespace, now=self._clock()
        )

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
        return {k: v for k, v in props.items() if k not in RESERVED_ANNOTATION_KEYS}

    @writes
    async def annotate_namespace(self, **annotations: str | int | float | bool | None) -> None:
        """Store scalar key/value annotations on this namespace (registering it when needed),
        e.g. which data set it was loaded from; ``None`` removes a key. They are deleted with
        the namespace.

        Raises:
            ValidationFailedError: a key Neo4j cannot take (empty, a NUL character), a reserved
                one (``name``, ``created_at``) or a value that is not a Neo4j scalar (str, bool,
                64-bit int, finite float), as
                :func:`~engrava_graph.model.namespace.validate_annotations` says.
        """
        validate_annotations(annotations)
        await self.executor.write(
            Q["namespaces/annotate"], namespace=self.namespace, now=self._clock(), props=annotations
        )

    @writes
    async def delete_namespace(self, *, batch_size: int = 1000) -> None:
        """Delete every node and relationship of this namespace, in batches of ``batch_size``
        rows each committed on its own (``CALL { … } IN TRANSACTIONS``); other namespaces are
        untouched. Re-running after an interruption finishes the job."""
        for label in NodeLabel:
            await self.executor.run_auto_commit(
                _DELETE_BATCH[label], namespace=self.namespace, batch_size=batch_size
            )
        await self.executor.write(Q["namespaces/delete_node"], namespace=self.namespace)
