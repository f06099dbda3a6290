"""The embedding provider contract, and the two ways the library calls a provider."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from engrava_graph.model.errors import EmbeddingError


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into vectors.

    ``embed`` is synchronous (typically a CPU-bound model forward pass). The library's async
    code calls it only through :func:`embed_off_loop`, i.e. from a worker thread, so a provider
    shared by concurrent requests must tolerate calls from several threads (serialising them
    itself if it has to, as :class:`SentenceTransformerProvider` does).

    Attributes:
        dimensions: length ``d`` of every vector (the vector index is created with it).
        model_name: a stable name, recorded with the schema.
    """

    dimensions: int
    model_name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``.

        Returns:
            ``float32`` array of shape ``(len(texts), dimensions)``, L2-normalised rows.
        """
        ...


def checked_vectors(provider: EmbeddingProvider, texts: Sequence[str]) -> np.ndarray:
    """Call ``provider.embed`` and enforce its contract.

    Returns:
        ``float32`` array ``(len(texts), provider.dimensions)`` of finite values.

    Raises:
        EmbeddingError: the provider raised, or returned a wrong shape or non-finite values.
    """
    if not texts:
        return np.zeros((0, provider.dimensions), dtype=np.float32)
    try:
        vectors = np.asarray(provider.embed(list(texts)), dtype=np.float32)
    except Exception as exc:  # a provider is third-party code: wrap whatever it raises
        raise EmbeddingError(f"embedding provider {provider.model_name!r} failed: {exc}") from exc
    expected = (len(texts), provider.dimensions)
    if vectors.shape != expected:
        raise EmbeddingError(
            f"embedding provider {provider.model_name!r} returned shape {vectors.shape}, "
            f"expected {expected}"
        )
    if not np.isfinite(vectors).all():
        raise EmbeddingError(f"embedding provider {provider.model_name!r} returned NaN or inf")
    return vectors


async def embed_off_loop(provider: EmbeddingProvider, texts: Sequence[str]) -> np.ndarray:
    """:func:`checked_vectors` on a worker thread: how async code embeds, without blocking.

    A provider call is synchronous and CPU-bound (tens to hundreds of milliseconds per query
    with the default model); made on the event loop it would stall every other coroutine
    (in the REST service, every concurrent request would queue behind it). It runs in the
    loop's default executor (``asyncio.to_thread``, context variables copied). If the awaiting
    task is cancelled the call still finishes in its thread and the vectors are dropped;
    callers write nothing before the vectors are back.

    Args:
        provider: the provider to call.
        texts: the texts, in order.

    Returns:
        ``float32`` array ``(len(texts), provider.dimensions)`` of finite values.

    Raises:
        EmbeddingError: as :func:`checked_vectors` (raised in the worker, re-raised here).
    """
    return await asyncio.to_thread(checked_vectors, provider, texts)
