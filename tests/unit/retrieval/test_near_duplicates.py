"""Post-ranking filters (000 Phase 8)."""

import numpy as np
import pytest

from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.filtering import apply_min_confidence, collapse_near_duplicates


def unit(angle_degrees: float) -> np.ndarray:
    radians = np.deg2rad(angle_degrees)
    return np.array([np.cos(radians), np.sin(radians), 0.0])


def test_keeps_the_higher_ranked_of_a_near_duplicate_pair() -> None:
    vectors = {"a": unit(0), "b": unit(90), "c": unit(5), "d": unit(92)}
    kept, dropped = collapse_near_duplicates(["a", "b", "c", "d"], vectors)
    assert kept == ["a", "b"]
    assert dropped == {"c": "a", "d": "b"}


def test_threshold_is_strict_and_configurable() -> None:
    a, b = unit(0), unit(np.rad2deg(np.arccos(0.95)))  # cosine exactly 0.95
    vectors = {"a": a, "b": b}
    assert collapse_near_duplicates(["a", "b"], vectors) == (["a", "b"], {})
    assert collapse_near_duplicates(["a", "b"], vectors, threshold=0.9) == (["a"], {"b": "a"})


def test_dropped_candidates_do_not_absorb_others() -> None:
    # b duplicates a; c duplicates b but not a, so c stays
    vectors = {"a": unit(0), "b": unit(14), "c": unit(28)}
    kept, dropped = collapse_near_duplicates(["a", "b", "c"], vectors, threshold=0.97)
    assert kept == ["a", "c"]
    assert dropped == {"b": "a"}


def test_maps_to_the_highest_ranked_kept_duplicate() -> None:
    vectors = {"a": unit(0), "b": unit(3), "c": unit(1)}
    kept, dropped = collapse_near_duplicates(["a", "b", "c"], vectors, threshold=0.999)
    assert kept == ["a", "b"]
    assert dropped == {"c": "a"}


def test_ids_without_vectors_are_never_collapsed() -> None:
    vectors = {"a": unit(0), "b": None, "c": unit(0), "d": np.zeros(3)}
    kept, dropped = collapse_near_duplicates(["b", "a", "e", "c", "d"], vectors)
    assert kept == ["b", "a", "e", "d"]
    assert dropped == {"c": "a"}


def test_magnitude_does_not_matter_only_direction() -> None:
    vectors = {"a": unit(0) * 10, "b": unit(1) * 0.01}
    assert collapse_near_duplicates(["a", "b"], vectors) == (["a"], {"b": "a"})


def test_empty_and_single() -> None:
    assert collapse_near_duplicates([], {}) == ([], {})
    assert collapse_near_duplicates(["a"], {"a": unit(0)}) == (["a"], {})


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError):
        collapse_near_duplicates(["a", "a"], {"a": unit(0)})
    with pytest.raises(ValueError):
        collapse_near_duplicates(["a", "b"], {"a": unit(0), "b": np.ones(4)})


def test_min_confidence_keeps_order_and_is_inclusive() -> None:
    confidences = {"a": 0.9, "b": 0.5, "c": 0.7, "d": 0.69}
    assert apply_min_confidence(["a", "b", "c", "d"], confidences, 0.7) == ["a", "c"]
    assert apply_min_confidence(["b", "a"], confidences, 0.0) == ["b", "a"]


@pytest.mark.parametrize("threshold", [-0.01, 1.01])
def test_min_confidence_outside_unit_interval_is_rejected(threshold: float) -> None:
    with pytest.raises(InvalidQueryError) as caught:
        apply_min_confidence(["a"], {"a": 0.5}, threshold)
    assert caught.value.field == "min_confidence"
