"""Which vectors Neo4j's cosine can use: the shared norm check and the provider contract."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engrava_graph.embeddings.base import NORM_RULE, checked_vectors, norm_problem
from engrava_graph.model.errors import EmbeddingError

D = 384


@pytest.mark.parametrize("value", [0.0, 1e-300, 1e-46, 1e38, 1e39])
def test_zero_or_infinite_float32_norm_is_a_problem(value: float) -> None:
    # 1e-300 and 1e-46 are 0 as float32; 1e38 squares to inf in float32; 1e39 is inf
    assert norm_problem([value] * D) == 0


@pytest.mark.parametrize("vector", [[1.0] + [0.0] * (D - 1), [1e-20] * D, [1e18] * 1, [-0.05] * D])
def test_usable_vectors_pass(vector: list[float]) -> None:
    assert norm_problem(vector) is None


def test_a_batch_names_its_first_bad_row() -> None:
    batch = np.array([[1.0] * D, [1.0] * D, [0.0] * D, [0.0] * D])
    assert norm_problem(batch) == 2
    assert norm_problem(batch[:2]) is None


def test_nan_is_a_problem() -> None:
    assert norm_problem([float("nan")] + [1.0] * (D - 1)) == 0


def test_the_rule_says_what_to_do() -> None:
    assert NORM_RULE.startswith(
        "an embedding must have a non-zero, finite length (L2 norm) as float32"
    )
    assert "normalise" in NORM_RULE


class _ZeroProvider:
    """Returns an all-zero vector for the text ``"blank"``, unit vectors otherwise."""

    dimensions = D
    model_name = "zero-test"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), D), dtype=np.float32)
        for i, text in enumerate(texts):
            rows[i, 0] = 0.0 if text == "blank" else 1.0
        return rows


def test_provider_zero_vector_is_an_embedding_error() -> None:
    assert checked_vectors(_ZeroProvider(), ["a", "b"]).shape == (2, D)
    with pytest.raises(EmbeddingError, match=r"'zero-test' .* text 1: an embedding must have"):
        checked_vectors(_ZeroProvider(), ["a", "blank"])
