"""Which Neo4j line a kernel version is, and which vector index statement it gets."""

from __future__ import annotations

import pytest

from engrava_graph.graph import schema
from engrava_graph.graph.dialect import parse_server_line


@pytest.mark.parametrize(
    ("version", "filtered"),
    [
        ("2026.08.1", True),
        ("2026.01.0", True),
        ("2025.12.1", False),
        ("5.26.30", False),
        ("5.27-aura", False),
        ("2027.02", True),
        ("dev", False),
    ],
)
def test_filtered_vector_index_from_2026_01(version, filtered):
    line = parse_server_line(version, "community")
    assert (line.version, line.filtered_vector_index) == (version, filtered)


def test_each_line_creates_its_own_vector_index():
    lts = schema.schema_statements(filtered_vector_index=False)[-1]
    current = schema.schema_statements(filtered_vector_index=True)[-1]
    assert lts.name == "schema/thought_vector" and "WITH [" not in lts.text
    assert current.name == "schema/thought_vector_filtered"
    assert "WITH [t.namespace, t.lifecycle_status]" in current.text
    assert (
        schema.schema_statements()[:-1] == schema.schema_statements(filtered_vector_index=True)[:-1]
    )
