"""Caller-defined metadata on thoughts and edges, and the metadata filter.

Metadata is a ``dict[str, MetadataValue]``: scalar leaves (``str``, ``int``, ``float``, ``bool``,
``None``) and nested dicts. In Neo4j it is stored twice on the node or relationship:
``metadata_json`` (exact round trip) and one flattened property per scalar leaf named
``meta.<dotted.path>`` so a :class:`MetadataFilter` runs inside Cypher (``t[$key]``), never in
Python. Keys are never spliced into Cypher text; they travel as parameters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from typing_extensions import TypeAliasType

from engrava_graph.model.bounds import scalar_problem
from engrava_graph.model.errors import InvalidFilterError

MetadataValue = TypeAliasType(
    "MetadataValue", "str | int | float | bool | dict[str, MetadataValue] | None"
)

META_PREFIX = "meta."
_KEY_RE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_PATH_RE = re.compile(r"^(\$\.)?[A-Za-z0-9_\-]{1,64}(\.[A-Za-z0-9_\-]{1,64}){0,7}$")
_MAX_DEPTH = 8
#: Most keys one metadata object may hold, nested ones counted. Every scalar leaf becomes a node
#: or relationship property (``meta.<path>``); a 3 MB body of 280,000 keys, well inside the
#: service's 4 MiB limit, kept Neo4j writing one node for over ten minutes.
MAX_METADATA_KEYS = 256


def validate_metadata(metadata: Mapping[str, object], *, capped: bool = True) -> None:
    """Check keys (1-64 of ``[A-Za-z0-9_-]``, no dots), leaves and size, recursively.

    A leaf must be a Neo4j scalar: ``str``, ``bool``, ``None``, an ``int`` in the signed 64-bit
    range or a finite ``float`` (see :func:`~engrava_graph.model.bounds.scalar_problem`).

    Args:
        metadata: the metadata.
        capped: refuse more than :data:`MAX_METADATA_KEYS` keys (False for a record read back
            from Neo4j, so one stored before the cap stays readable).

    Raises:
        ValueError: on a bad key, a bad leaf (its dotted path named), nesting deeper than
            8 levels, or (``capped``) more than :data:`MAX_METADATA_KEYS` keys in all.
    """
    if _checked_keys(metadata, (), MAX_METADATA_KEYS if capped else None) > MAX_METADATA_KEYS:
        raise ValueError(
            f"metadata holds more than {MAX_METADATA_KEYS} keys (nested ones counted); "
            f"store a large document as a string leaf or in content"
        )


def _checked_keys(metadata: Mapping[str, object], path: tuple[str, ...], cap: int | None) -> int:
    """Check ``metadata`` (at ``path``) as :func:`validate_metadata` says; returns how many keys
    it holds, nested ones counted (stopping once past ``cap``; None: no cap, returns 0)."""
    if len(path) >= _MAX_DEPTH:
        raise ValueError(f"metadata nests deeper than {_MAX_DEPTH} levels")
    count = 0
    for key, value in metadata.items():
        count += 1
        if cap is not None and count > cap:
            break
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise ValueError(
                f"metadata key {key!r} is invalid: use 1-64 letters, digits, '_' or '-' "
                f"(nest with dicts instead of dots)"
            )
        if isinstance(value, dict):
            count += _checked_keys(value, (*path, key), cap)
        elif problem := scalar_problem(value):
            hint = (
                ""
                if isinstance(value, str | int | float)
                else (
                    "; leaves must be scalars (encode lists as a string or a dict keyed by index)"
                )
            )
            raise ValueError(f"metadata {'.'.join((*path, key))!r} {problem}{hint}")
    return count if cap is not None else 0


def flatten_metadata(
    metadata: Mapping[str, object], prefix: str = META_PREFIX
) -> dict[str, object]:
    """Flatten nested metadata into ``{"meta.a.b": leaf}`` Neo4j properties (``None`` leaves
    dropped).

    Examples:
        >>> flatten_metadata({"speaker": "Ann", "src": {"is_self": True, "x": None}})
        {'meta.speaker': 'Ann', 'meta.src.is_self': True}
    """
    flat: dict[str, object] = {}
    for key, value in metadata.items():
        if isinstance(value, dict):
            flat.update(flatten_metadata(value, f"{prefix}{key}."))
        elif value is not None:
            flat[f"{prefix}{key}"] = value
    return flat


def metadata_to_json(metadata: Mapping[str, object]) -> str:
    """Serialise metadata for the ``metadata_json`` property (sorted keys: stable content)."""
    return json.dumps(metadata, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class FieldOp(StrEnum):
    """Filter operators: equality and membership, as in the peer package ``engrava``."""

    EQ = "EQ"
    IN = "IN"


FilterScalar = str | int | float | bool | None


@dataclass(frozen=True)
class FieldPredicate:
    """One typed predicate over a metadata path.

    Args:
        path: ``"speaker"``, ``"source.is_self"`` or the peer's JSONPath form ``"$.speaker"``.
        op: ``FieldOp.EQ`` (one scalar; ``None`` matches a missing or null value) or
            ``FieldOp.IN`` (a collection of scalars; empty matches nothing).
        value: the scalar or the collection.

    Raises:
        InvalidFilterError: bad path, operator or value.
    """

    path: str
    op: FieldOp
    value: FilterScalar | tuple[FilterScalar, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not _PATH_RE.match(self.path):
            raise InvalidFilterError(
                f"filter path {self.path!r} is invalid: use dotted keys like 'speaker' or "
                f"'source.is_self'"
            )
        try:
            op = FieldOp(self.op)
        except ValueError as exc:
            raise InvalidFilterError(
                f"unsupported filter operator {self.op!r}: use EQ or IN"
            ) from exc
        object.__setattr__(self, "op", op)
        if op is FieldOp.IN:
            if isinstance(self.value, str | bytes) or not isinstance(self.value, Iterable):
                raise InvalidFilterError("an IN filter needs a list of scalars")
            values = tuple(self.value)
        else:
            if isinstance(self.value, dict | list | tuple | set):
                raise InvalidFilterError("an EQ filter needs one scalar, not a collection")
            values = (self.value,)
        for v in values:
            _check_scalar(v)
        object.__setattr__(self, "value", values if op is FieldOp.IN else self.value)

    @property
    def property_key(self) -> str:
        """The flattened Neo4j property this predicate reads (``meta.<path>``)."""
        return META_PREFIX + self.path.removeprefix("$.")

    def to_param(self) -> dict[str, object]:
        """``{key, values, match_null}``: the shape ``cypher/*`` filter predicates read."""
        values = self.value if isinstance(self.value, tuple) else (self.value,)
        return {
            "key": self.property_key,
            "values": [v for v in values if v is not None],
            "match_null": any(v is None for v in values),
        }


def _check_scalar(value: object) -> None:
    if problem := scalar_problem(value):
        raise InvalidFilterError(f"filter value {value!r} {problem}")


@dataclass(frozen=True)
class MetadataFilter:
    """An AND of :class:`FieldPredicate` over metadata, evaluated in Cypher.

    Examples:
        >>> f = MetadataFilter.equals(speaker="Caroline", session=3)
        >>> [p["key"] for p in f.to_params()]
        ['meta.speaker', 'meta.session']
    """

    predicates: tuple[FieldPredicate, ...] = ()

    @classmethod
    def equals(cls, **pairs: FilterScalar) -> MetadataFilter:
        """Exact-match filter from keyword pairs (``retrieve``'s ``metadata_filter``)."""
        return cls(tuple(FieldPredicate(k, FieldOp.EQ, v) for k, v in pairs.items()))

    @classmethod
    def of(cls, value: MetadataFilter | Mapping[str, object] | None) -> MetadataFilter:
        """``value`` as a filter: a :class:`MetadataFilter` as it is, a mapping through
        :meth:`from_mapping` (``{"path": scalar | [scalars]}``, the shape of ``retrieve``'s
        ``metadata_filter``), and None as no filter. Every ``filters`` argument of the store
        goes through it.

        Raises:
            InvalidFilterError: a bad path or value (an empty list too: it would match
                nothing), or ``value`` is neither a filter nor a mapping.

        Examples:
            >>> [p["key"] for p in MetadataFilter.of({"speaker": "Ann"}).to_params()]
            ['meta.speaker']
        """
        if value is None:
            return cls()
        if isinstance(value, MetadataFilter):
            return value
        if isinstance(value, Mapping):
            return cls.from_mapping(value)
        raise InvalidFilterError(
            f"filters must be a MetadataFilter or a mapping {{path: value | [values]}}, got "
            f"{type(value).__name__}"
        )

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object] | None) -> MetadataFilter:
        """From ``{"path": scalar | [scalars]}``: a list means IN, a scalar EQ (the REST shape).

        Raises:
            InvalidFilterError: on a bad path or value, or an empty list, which would silently
                match nothing (the message names its path).
        """
        preds = []
        for path, value in (mapping or {}).items():
            is_list = isinstance(value, list | tuple)
            if is_list and not value:
                raise InvalidFilterError(
                    f"filter {path!r}: an empty list matches nothing; give at least one value"
                )
            op = FieldOp.IN if is_list else FieldOp.EQ
            preds.append(FieldPredicate(path, op, value))  # type: ignore[arg-type]
        return cls(tuple(preds))

    def to_params(self) -> list[dict[str, object]]:
        """The ``$meta_filters`` parameter: one ``{key, values, match_null}`` per predicate."""
        return [p.to_param() for p in self.predicates]
