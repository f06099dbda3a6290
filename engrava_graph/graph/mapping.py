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

from pydantic import BaseModel

from engrava_graph.model.bounds import STORED
from engrava_graph.model.metadata import META_PREFIX, flatten_metadata, metadata_to_json
from engrava_graph.model.records import EdgeRecord, ThoughtRecord


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


def removed_meta_keys(
    old_props: Mapping[str, Any], new_props: Mapping[str, Any]
) -> dict[str, None]:
    """``{key: None}`` for every ``meta.*`` property present before but not after an update."""
    return {k: None for k in old_props if k.startswith(META_PREFIX) and k not in new_props}


def _from_props(model: type[BaseModel], props: Mapping[str, Any]) -> Any:
    """Validate the record's own fields; any other property (ours, such as ``embedding``, or
    one a person set in Neo4j Browser) is left on the node and out of the record."""
    data = {k: v for k, v in props.items() if k in model.model_fields and k != "metadata"}
    for key, value in data.items():
        if hasattr(value, "to_native"):
            data[key] = value.to_native()
    data["metadata"] = json.loads(props.get("metadata_json") or "{}")
    return model.model_validate(data, context=STORED)


def thought_from_properties(props: Mapping[str, Any]) -> ThoughtRecord:
    """Rebuild a ThoughtRecord from a node's properties (extra graph properties ignored)."""
    return _from_props(ThoughtRecord, props)  # type: ignore[no-any-return]


def edge_from_properties(props: Mapping[str, Any]) -> EdgeRecord:
    """Rebuild an EdgeRecord from a relationship's properties."""
    return _from_props(EdgeRecord, props)  # type: ignore[no-any-return]
