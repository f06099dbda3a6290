"""VectorParam: a list to the driver, a short repr to its debug log."""

from __future__ import annotations

import numpy as np

from engrava_graph.graph.params import VectorParam, vector_param


def test_a_vector_param_is_the_list_of_its_floats_with_a_short_repr():
    values = np.arange(384, dtype=np.float32) / 384
    v = vector_param(values)
    assert isinstance(v, list) and type(v[0]) is float
    assert v == values.tolist()
    assert repr(v) == "<vector of 384 floats>"
    assert repr({"vector": v}) == "{'vector': <vector of 384 floats>}"


def test_none_stays_none():
    assert vector_param(None) is None
    assert VectorParam() == []
