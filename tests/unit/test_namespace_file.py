"""The namespace export file read without Neo4j (:mod:`engrava_graph.cli.namespace_file`): the
header and every line are checked whole before ``import`` writes anything, and each problem is
one line naming the line number and the field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engrava_graph.cli.namespace_file import EXPORT_FORMAT, FORMAT_V1, read_export
from engrava_graph.model.errors import DatasetError

HEADER: dict[str, Any] = {
    "kind": "namespace",
    "format": EXPORT_FORMAT,
    "namespace": "agent-7",
    "annotations": {"source": "trial"},
    "exported_at": "2026-12-07T10:00:00+00:00",
}
THOUGHT = {
    "kind": "thought",
    "thought": {
        "thought_id": "t-1",
        "thought_type": "NOTE",
        "essence": "The deploy failed at 3pm",
        "content": "The deploy failed at 3pm",
        "source": "cli",
    },
    "embedding": None,
}
END = {"kind": "end", "thoughts": 1, "edges": 0}


def _read(*rows: Any) -> Any:
    return read_export(iter(json.dumps(row) for row in rows))


def test_a_good_header_gives_its_namespace_and_annotations() -> None:
    read = _read(HEADER, THOUGHT, END)
    assert (read.namespace, read.annotations) == ("agent-7", {"source": "trial"})
    assert [t.thought_id for t in read.thoughts] == ["t-1"]
    assert _read({**HEADER, "annotations": None}, {**END, "thoughts": 0}).annotations == {}


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"annotations": [1, 2]}, "line 1: namespace annotations must be key/value pairs"),
        ({"annotations": "abc"}, "line 1: namespace annotations must be key/value pairs"),
        ({"annotations": {"": 1}}, "line 1: namespace annotation key '' must be non-empty"),
        ({"annotations": {"a\u0000": 1}}, "line 1: namespace annotation key 'a\\x00' must not"),
        ({"annotations": {"name": "x"}}, "line 1: namespace annotation 'name' is reserved"),
        ({"annotations": {"a": {"b": 1}}}, "line 1: namespace annotation 'a' is a dict"),
        ({"annotations": {"a": 2**70}}, "line 1: namespace annotation 'a' is outside"),
        ({"namespace": None}, "line 1: namespace None is invalid"),
        ({"namespace": "a/b"}, "line 1: namespace 'a/b' is invalid"),
        ({"exported_at": 5}, "line 1: invalid exported_at"),
        ({"extra": 1}, "line 1: unknown field 'extra'"),
        ({"format": "engrava-graph/namespace-v0"}, "line 1: the first line is not an"),
    ],
)
def test_a_bad_header_is_refused_naming_the_field(change: dict[str, Any], needle: str) -> None:
    with pytest.raises(DatasetError) as caught:
        _read({**HEADER, **change}, THOUGHT)
    assert needle in str(caught.value)


def test_a_header_without_a_namespace_is_refused() -> None:
    header = {k: v for k, v in HEADER.items() if k != "namespace"}
    with pytest.raises(DatasetError) as caught:
        _read(header, THOUGHT)
    assert str(caught.value) == "line 1: missing field 'namespace'"


@pytest.mark.parametrize(
    "line, needle",
    [
        ([1, 2], "line 2: expected a JSON object (an export line), found array"),
        (5, "line 2: expected a JSON object (an export line), found number"),
        ({**THOUGHT, "embedding": "abc"}, "line 2: invalid embedding: expected an array of "),
        ({**THOUGHT, "embedding": {"a": 1}}, "line 2: invalid embedding: expected an array"),
        ({**THOUGHT, "embedding": []}, "found an empty array"),
        ({**THOUGHT, "embedding": [0.5, True]}, "line 2: invalid embedding.1: expected a number"),
        ({**THOUGHT, "embedding": [0, 0]}, "line 2: invalid embedding: an embedding must have"),
        ({**THOUGHT, "embedding": [10**400]}, "line 2: invalid embedding: an embedding must"),
        ({**THOUGHT, "thought": [1]}, "line 2: invalid thought: expected a JSON object, found"),
        ({**THOUGHT, "extra": 1}, "line 2: unknown field 'extra'; a thought line holds"),
        ({"kind": "edge", "edge": "e"}, "line 2: invalid edge: expected a JSON object"),
        ({"kind": ["thought"]}, "line 2: unknown kind ['thought']"),
        ({"thought": {}}, "line 2: missing field 'kind'"),
    ],
)
def test_a_malformed_line_is_refused_naming_its_number_and_field(line: Any, needle: str) -> None:
    with pytest.raises(DatasetError) as caught:
        _read(HEADER, line)
    assert needle in str(caught.value)


def test_a_header_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(DatasetError) as caught:
        _read(["namespace"])
    assert str(caught.value) == "line 1: expected a JSON object (an export line), found array"


EDGE = {
    "kind": "edge",
    "edge": {"edge_id": "e-1", "from_thought_id": "t-1", "to_thought_id": "t-1"},
}


@pytest.mark.parametrize("kind, field", [("thought", "thought_id"), ("edge", "edge_id")])
def test_a_record_without_its_id_is_refused(kind: str, field: str) -> None:
    """An export always writes the ids; a record without one is refused (it would get a new
    random id), naming its line."""
    rows = {"thought": THOUGHT, "edge": EDGE}
    line = {**rows[kind], kind: {k: v for k, v in rows[kind][kind].items() if k != field}}
    body = [line if row is rows[kind] else row for row in (THOUGHT, EDGE)]
    with pytest.raises(DatasetError) as caught:
        _read(HEADER, *body, {**END, "edges": 1})
    number = 2 if kind == "thought" else 3
    assert str(caught.value) == f"line {number}: missing field {field!r}"


SECOND = {**THOUGHT, "thought": {**THOUGHT["thought"], "thought_id": "t-2"}}


def _edge(edge_id: str, source: str = "t-1", target: str = "t-2", **fields: Any) -> Any:
    ends = {"from_thought_id": source, "to_thought_id": target}
    edge = {"edge_id": edge_id, **ends, "edge_type": "ASSOCIATED", **fields}
    return {"kind": "edge", "edge": edge}


@pytest.mark.parametrize(
    "body, message",
    [
        ([THOUGHT, THOUGHT], "line 3: thought id 't-1' also on line 2"),
        (
            [THOUGHT, SECOND, _edge("e"), _edge("e", "t-2", "t-1")],
            "line 5: edge id 'e' also on line 4",
        ),
        (
            [THOUGHT, SECOND, _edge("e"), _edge("f")],
            "line 5: the edge 't-1' -[ASSOCIATED]-> 't-2' also on line 4",
        ),
        ([THOUGHT, _edge("e", "t-1", "y")], "line 3: edge ends at thought 'y', which no thought"),
        ([_edge("e", "x"), THOUGHT, SECOND], "line 2: edge starts at thought 'x', which no"),
    ],
)
def test_repeats_and_dangling_edges_name_their_lines(body: list[Any], message: str) -> None:
    """A thought id, an edge id or an edge's (from, to, type) twice, and an edge to a thought no
    line holds, are refused by the reader naming the lines (nothing reaches the database)."""
    kinds = [row["kind"] for row in body]
    end = {**END, "thoughts": kinds.count("thought"), "edges": kinds.count("edge")}
    with pytest.raises(DatasetError) as caught:
        _read(HEADER, *body, end)
    assert str(caught.value).startswith(message), caught.value
    other_type = _edge("f", edge_type="CAUSED_BY")
    both = _read(
        HEADER, THOUGHT, SECOND, _edge("e"), other_type, {**END, "thoughts": 2, "edges": 2}
    )
    assert [e.edge_id for e in both.edges] == ["e", "f"]


@pytest.mark.parametrize(
    "line, needle",
    [
        (
            '{"kind": "thought", "thought": {\n',
            "line 2, column 33: not valid JSON (Expecting property name enclosed in double "
            "quotes); the line looks cut short",
        ),
        (
            '{"kind": "thought", "thought": {"essence": "The dep\r\n',
            "line 2, column 44: not valid JSON (Unterminated string starting at); the line "
            "looks cut short",
        ),
        ('{"kind": tru, "thought": {}}\n', "line 2, column 10: not valid JSON (Expecting value)"),
    ],
)
def test_a_json_error_names_its_column_in_the_line(line: str, needle: str) -> None:
    """The column is the error's in the line (its newline aside), also at the line's end; a
    line ending inside a string or an open value is said to look cut short."""
    with pytest.raises(DatasetError) as caught:
        read_export(iter([json.dumps(HEADER) + "\n", line]))
    assert str(caught.value) == needle


def test_an_unusable_embedding_is_not_advised_to_be_left_out_for_embedding() -> None:
    """Import never embeds text: a vector Neo4j would reject is refused with advice that holds
    on import (null stores the thought without a vector), not "leave it out to embed"."""
    with pytest.raises(DatasetError) as caught:
        _read(HEADER, {**THOUGHT, "embedding": [0.0, 0.0]})
    message = str(caught.value)
    assert "embed the text" not in message, message
    assert "set it to null: import never embeds text" in message, message


def test_nan_is_not_a_number_an_embedding_may_hold() -> None:
    """Python's json writes and reads ``NaN`` (not JSON): refused as a vector Neo4j rejects."""
    with pytest.raises(DatasetError, match="line 2: invalid embedding: an embedding must"):
        _read(HEADER, {**THOUGHT, "embedding": [float("nan"), 1.0]})


@pytest.mark.parametrize(
    "rows, needle",
    [
        ([HEADER], "the file ends at line 1 without the end line"),
        ([HEADER, THOUGHT], "the file ends at line 2 without the end line"),
        ([HEADER, {**END, "thoughts": 2}], "line 2: the end line counts 2 thoughts and 0 edges, "),
        ([HEADER, END], "the file holds 0 thoughts and 0 edges: lines are missing"),
        ([HEADER, THOUGHT, END, THOUGHT], "line 4: a line after the end line (line 3)"),
        ([HEADER, {**END, "edges": -1}], "line 2: invalid edges: expected a count"),
        ([HEADER, {**END, "edges": True}], "line 2: invalid edges: expected a count"),
        ([HEADER, {"kind": "end", "edges": 0}], "line 2: missing field 'thoughts'"),
        ([{**HEADER, "format": FORMAT_V1}, THOUGHT, END], "line 3: unknown kind 'end'"),
    ],
)
def test_a_file_cut_short_or_miscounted_is_refused(rows: list[Any], needle: str) -> None:
    with pytest.raises(DatasetError) as caught:
        _read(*rows)
    assert needle in str(caught.value)
    if "without the end line" in needle:
        assert str(caught.value).endswith(
            "it was cut short or is not a whole export; nothing was written"
        )


def test_a_v1_file_has_no_end_line_and_is_read_as_it_is() -> None:
    assert len(_read({**HEADER, "format": FORMAT_V1}, THOUGHT).thoughts) == 1
