"""Records <-> Neo4j properties.

A thought node keeps every ThoughtRecord field as a property of the same name (enums as their
string values, instants as Neo4j ``DateTime``), plus ``metadata_json`` and the flattened
``meta.*`` properties (see :mod:`engrava_graph.model.metadata`), ``content_hash``, ``namespace``,
``ns_token`` and ``embedding``. Relationships keep every EdgeRecord field the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from engrava_graph.model.bounds import STORED
from engrava_graph.model.errors import InvalidStoredRecordError
from engrava_graph.model.metadata import META_PREFIX, flatten_metadata, metadata_to_json
from engrava_graph.model.records import EdgeRecord, ThoughtRecord, content_hash


def _plain(value: Any) -> Any:
    return value.value if hasattr(value, "value") and not isinstance(value, bool) else value


def record_properties(record: ThoughtRecord | EdgeRecord) -> dict[str, Any]:
    """The property map a record is stored as (``metadata`` flattened, ``None`` kept as null).

    Keeping ``None`` values lets ``SET n += $props`` remove a property that became null.
    """
    props: dict[str, Any] = {}
    for name in type(record).model_fields:
        if name == "metadata":
            continue
        value = getattr(record, name)
        props[name] = [_plain(v) for v in value] if isinstance(value, list) else _plain(value)
    props["metadata_json"] = metadata_to_json(record.metadata)
    props.update(flatten_metadata(record.metadata))
    return props


def thought_properties(thought: ThoughtRecord) -> dict[str, Any]:
    """The property map a thought is stored as: its record's (:func:`record_properties`,
    ``None`` kept as null) and ``content_hash``, derived from its text (deduplication looks it
    up). Every write and update of a thought stores this map, so the hash never lags the text.
    """
    return {**record_properties(thought), "content_hash": content_hash(thought.content)}


def removed_meta_keys(
    old_props: Mapping[str, Any], new_props: Mapping[str, Any]
) -> dict[str, None]:
    """``{key: None}`` for every ``meta.*`` property present before but not after an update."""
    return {k: None for k in old_props if k.startswith(META_PREFIX) and k not in new_props}


def _from_props(
    model: type[BaseModel],
    props: Mapping[str, Any],
    kind: str,
    key: str,
    changes: Mapping[str, Any] | None = None,
) -> Any:
    """Validate the record's own fields; any other property (ours, such as ``embedding``, or
    one a person set in Neo4j Browser) is left on the node and out of the record. ``changes``
    (record fields, ``metadata`` as a dict) replace the stored values of those fields first.

    Raises:
        InvalidStoredRecordError: the properties do not form a valid record (edited by hand).
    """
    data = {k: v for k, v in props.items() if k in model.model_fields and k != "metadata"}
    for name, value in data.items():
        if hasattr(value, "to_native"):
            data[name] = value.to_native()
    record_id = str(props.get(key) or "?")
    try:
        data["metadata"] = json.loads(props.get("metadata_json") or "{}")
    except json.JSONDecodeError as exc:
        if "metadata" not in (changes or {}):
            problem = f"metadata_json: {exc.msg}"
            raise InvalidStoredRecordError(kind, record_id, [problem], fields=["metadata"]) from exc
    data.update(changes or {})
    try:
        return model.model_validate(data, context=STORED)
    except ValidationError as exc:
        errors = exc.errors()
        problems = [f"{'.'.join(str(p) for p in e['loc']) or kind}: {e['msg']}" for e in errors]
        fields = list(dict.fromkeys(str(e["loc"][0]) for e in errors if e["loc"]))
        raise InvalidStoredRecordError(kind, record_id, problems, fields=fields) from exc


def thought_from_properties(
    props: Mapping[str, Any], changes: Mapping[str, Any] | None = None
) -> ThoughtRecord:
    """Rebuild a ThoughtRecord from a node's properties (extra graph properties ignored), with
    ``changes`` (record fields) in place of the stored values of those fields.

    Raises:
        InvalidStoredRecordError: the node does not form a valid thought (edited by hand).
    """
    record = _from_props(ThoughtRecord, props, "thought", "thought_id", changes)
    return record  # type: ignore[no-any-return]


def edge_from_properties(props: Mapping[str, Any]) -> EdgeRecord:
    """Rebuild an EdgeRecord from a relationship's properties.

    Raises:
        InvalidStoredRecordError: the relationship does not form a valid edge (edited by hand).
    """
    return _from_props(EdgeRecord, props, "edge", "edge_id")  # type: ignore[no-any-return]
