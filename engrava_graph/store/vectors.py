"""The store's vectors area: checking, computing and reading embeddings (the provider runs
off the event loop, always before anything is written)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engrava_graph.embeddings.base import NORM_RULE, embed_off_loop, norm_problem
from engrava_graph.graph.params import vector_param
from engrava_graph.graph.registry import cypher
from engrava_graph.model.bounds import blank
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.records import ThoughtRecord, content_hash
from engrava_graph.store._base import StoreBase
from engrava_graph.store.modes import writes

Q = {
    name: cypher(name)
    for name in (
        "thoughts/embeddings",
        "thoughts/get_embedding",
        "thoughts/set_embeddings",
    )
}


def _embed_input(thought: ThoughtRecord) -> str:
    """What is embedded: ``content`` when it starts with ``essence``, else both (as the peer
    does)."""
    if thought.content.strip().startswith(thought.essence.strip()):
        return thought.content
    return f"{thought.essence}\n{thought.content}"


class VectorsMixin(StoreBase):
    """Embeddings of :class:`~engrava_graph.store.Neo4jEngravaCore`."""

    async def _vectors_for(
        self,
        thoughts: Sequence[ThoughtRecord],
        given: Sequence[Sequence[float] | None] | None,
    ) -> list[list[float] | None]:
        """The given vectors (checked, :meth:`_checked_embeddings`), else the provider's (off the
        event loop), else None."""
        if given is not None:
            return self._checked_embeddings(thoughts, given)
        if self.embedding_provider is None or not self.auto_embed:
            return [None] * len(thoughts)
        vectors = await embed_off_loop(self.embedding_provider, [_embed_input(t) for t in thoughts])
        return [row.tolist() for row in vectors]

    def _checked_embeddings(
        self,
        thoughts: Sequence[ThoughtRecord],
        given: Sequence[Sequence[float] | None],
    ) -> list[list[float] | None]:
        """``given``, one vector (or None) per thought, each checked by :meth:`_check_dims`.

        Raises:
            ValidationFailedError: not one per thought (naming ``embeddings``), or a bad vector
                (naming ``embeddings.<index>``).
        """
        if len(given) != len(thoughts):
            raise ValidationFailedError.of_field(
                "embeddings",
                f"one embedding (or null) per thought: expected {len(thoughts)}, got {len(given)}",
            )
        return [
            None
            if v is None
            else self._check_dims(
                v, f"embeddings.{i}", f"embedding {i} of {len(given)} (counted from 0)"
            )
            for i, v in enumerate(given)
        ]

    def _check_dims(
        self, vector: Sequence[float], field: str = "embedding", which: str = "the embedding"
    ) -> list[float]:
        """``vector`` as floats, if it has the store's length, finite items and a usable norm
        (:func:`~engrava_graph.embeddings.base.norm_problem`); else ValidationFailedError naming
        ``field``, whose message says what is wrong with ``which`` (a bulk call's position,
        ``"embedding 3 of 5 (counted from 0)"``)."""
        values = [float(x) for x in vector]
        if len(values) != self.vector_dimensions:
            problem = (
                f"{which} has {len(values)} dimensions; the index expects {self.vector_dimensions}"
            )
        elif not np.isfinite(values).all():
            position = int(np.flatnonzero(~np.isfinite(values))[0])
            problem = (
                f"{which} holds {values[position]} at position {position}; every value must be "
                f"a finite float"
            )
        elif norm_problem(values) is not None:
            problem = f"{which}: {NORM_RULE}"
        else:
            return values
        raise ValidationFailedError.of_field(field, problem)

    async def get_embedding(self, thought_id: str) -> list[float] | None:
        """The stored vector of a thought, or None (no thought or no embedding)."""
        rows = await self.executor.read(
            Q["thoughts/get_embedding"], namespace=self.namespace, thought_id=thought_id
        )
        return None if not rows or rows[0]["embedding"] is None else list(rows[0]["embedding"])

    async def get_embeddings(self, thought_ids: Sequence[str]) -> dict[str, list[float]]:
        """``{thought_id: vector}`` for the ids that exist and have an embedding (one read)."""
        row = (
            await self.executor.read(
                Q["thoughts/embeddings"], namespace=self.namespace, thought_ids=list(thought_ids)
            )
        )[0]
        return dict(zip(row["thought_ids"], row["embeddings"], strict=True))

    @writes
    async def reembed(self, thought_ids: Sequence[str]) -> list[str]:
        """Embed the stored text of existing thoughts again with the store's provider and
        replace their vectors: one provider call (on a worker thread), then one write. For
        thoughts whose vectors came from another model than the one queries are embedded with.

        Args:
            thought_ids: the thoughts; ids not in the namespace are left out.

        Returns:
            The ids whose vector was replaced (a thought updated meanwhile keeps the vector of
            its update and is left out).

        Raises:
            ValidationFailedError: the store has no embedding provider.
            EmbeddingError: the provider failed (nothing is written).
        """
        if self.embedding_provider is None:
            raise ValidationFailedError("reembed needs a store with an embedding provider")
        records = list((await self.get_thoughts(thought_ids)).values())
        if not records:
            return []
        vectors = await self.embed_queries([_embed_input(t) for t in records])
        rows = [
            {
                "thought_id": t.thought_id,
                "essence": t.essence,
                "content_hash": content_hash(t.content),
                "embedding": vector_param(vector),
            }
            for t, vector in zip(records, vectors, strict=True)
        ]
        written = await self.executor.write(
            Q["thoughts/set_embeddings"], namespace=self.namespace, rows=rows
        )
        return [row["thought_id"] for row in written]

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

    async def _query_vector(
        self, query_text: str, query_vector: Sequence[float] | None
    ) -> list[float] | None:
        """The given vector (checked), else the text's (None for blank text, as
        :func:`~engrava_graph.model.bounds.blank` reads it, or no provider)."""
        if query_vector is not None:
            return self._check_dims(query_vector)
        return None if blank(query_text) else await self.embed_query(query_text)
