"""The embedding provider contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from engrava_graph.model.errors import EmbeddingError


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into vectors.

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
