"""The namespace export file of ``engrava-graph export`` and ``import``: writing it from a
store, reading it back, and loading it into a namespace that holds no thoughts yet.

The file is JSON lines: a header line (``{"kind": "namespace", "format":
"engrava-graph/namespace-v2", ...}``), one ``{"kind": "thought", "thought": {...}, "embedding":
[...]}`` line per thought, one ``{"kind": "edge", "edge": {...}}`` line per edge, and an end line
``{"kind": "end", "thoughts": n, "edges": m}`` with the counts, so a file cut short (even at a
line boundary) is refused. Files of the first format (``engrava-graph/namespace-v1``: no end
line) are still read, their counts unchecked. Vectors are copied; entities and tags are derived
again from the text when the thoughts are stored.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Hashable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from engrava_graph.cli.errors import describe
from engrava_graph.cli.json_input import TOO_DEEP, NotUtf8Error, json_kind, open_input, problem
from engrava_graph.cli.text import counted
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings.base import NORM_PROBLEM, norm_problem
from engrava_graph.model.errors import (
    DatasetError,
    InvalidStoredRecordError,
    MigrationError,
    ValidationFailedError,
)
from engrava_graph.model.namespace import validate_annotations, validate_namespace
from engrava_graph.model.records import EdgeRecord, ThoughtRecord

EXPORT_FORMAT = "engrava-graph/namespace-v2"
FORMAT_V1 = "engrava-graph/namespace-v1"
"""The first format, still read: no end line, so its counts cannot be checked."""
_KINDS = {EXPORT_FORMAT: ("thought", "edge", "end"), FORMAT_V1: ("thought", "edge")}
"""The kinds of line after the header, per format."""
_NO_VECTOR = (
    "normalise the vector, e.g. to length 1, or set it to null: import never embeds text, so "
    "the thought is then stored without a vector and vector search does not find it"
)
"""What to do about an embedding Neo4j would reject, on import."""
_PAGE = 1000
_ALL_EDGES = 100_000_000
_FIELDS = {
    "namespace": ("kind", "format", "namespace", "annotations", "exported_at"),
    "thought": ("kind", "thought", "embedding"),
    "edge": ("kind", "edge"),
    "end": ("kind", "thoughts", "edges"),
}


@dataclass
class NamespaceExport:
    """An export file, read (:func:`read_export`).

    Attributes:
        namespace: the exported namespace (the header's).
        annotations: its annotations (the header's; checked as ``annotate_namespace`` does).
        thoughts: the thoughts, in file order.
        embeddings: their vectors, one per thought (None: the thought had none).
        edges: the edges, in file order.
        thought_lines: the line number of each thought, for messages.
    """

    namespace: str
    annotations: dict[str, Any]
    thoughts: list[ThoughtRecord]
    embeddings: list[list[float] | None]
    edges: list[EdgeRecord]
    thought_lines: list[int]


def _once(seen: dict[Hashable, int], key: Hashable, number: int, what: str) -> None:
    """Note that line ``number`` holds ``key``; ValueError (``<what> also on line M``) when
    an earlier line ``M`` holds it too."""
    if key in seen:
        raise ValueError(f"{what} also on line {seen[key]}")
    seen[key] = number


def _check_ends(edges: list[EdgeRecord], edge_lines: list[int], known: set[str]) -> None:
    """Refuse the first edge (in file order) that starts or ends at a thought no thought line
    holds (DatasetError naming its line)."""
    for number, edge in zip(edge_lines, edges, strict=True):
        for side, end in (("starts", edge.from_thought_id), ("ends", edge.to_thought_id)):
            if end not in known:
                raise DatasetError(
                    f"line {number}: edge {side} at thought {end!r}, which no thought line holds"
                )


async def export_lines(store: Neo4jEngravaCore) -> AsyncIterator[dict[str, Any]]:
    """The export of ``store``'s namespace, one JSON-ready dict per line (see the module
    docstring): the header, the thoughts in id order with their vectors, the edges, then the
    end line with their counts."""
    yield {
        "kind": "namespace",
        "format": EXPORT_FORMAT,
        "namespace": store.namespace,
        "annotations": await store.namespace_annotations(),
        "exported_at": datetime.now(UTC).isoformat(),
    }
    after: str | None = None
    thoughts = 0
    while True:
        page = await store.list_thoughts(after_id=after, limit=_PAGE, include_expired=True)
        vectors = await store.get_embeddings([t.thought_id for t in page])
        for thought in page:
            yield {
                "kind": "thought",
                "thought": thought.model_dump(mode="json"),
                "embedding": vectors.get(thought.thought_id),
            }
        thoughts += len(page)
        if len(page) < _PAGE:
            break
        after = page[-1].thought_id
    edges = await store.list_edges(limit=_ALL_EDGES)
    for edge in edges:
        yield {"kind": "edge", "edge": edge.model_dump(mode="json")}
    yield {"kind": "end", "thoughts": thoughts, "edges": len(edges)}


async def invalid_thoughts(store: Neo4jEngravaCore) -> list[InvalidStoredRecordError]:
    """The thoughts of ``store``'s namespace (expired ones too, as :func:`export_lines` reads
    them) that, as stored in Neo4j, are not valid records (edited by hand): an export would
    fail on them part way, so ``export`` looks for them before it writes anything."""
    invalid: list[InvalidStoredRecordError] = []
    after: str | None = None
    while True:
        page = await store.list_page(after_id=after, limit=_PAGE, include_expired=True)
        invalid.extend(page.invalid)
        if page.next_cursor is None:
            return invalid
        after = page.next_cursor


async def write_export(store: Neo4jEngravaCore, sink: IO[str]) -> dict[str, int]:
    """Write :func:`export_lines` of ``store`` to ``sink``, one JSON line each.

    Returns:
        ``{"thoughts": n, "edges": m}``, what was written (the end line's counts).
    """
    async for row in export_lines(store):
        sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    return {"thoughts": row["thoughts"], "edges": row["edges"]}


def _unknown_fields(row: dict[str, Any], kind: str) -> None:
    """Refuse a field a line of ``kind`` does not hold (ValueError naming it)."""
    unknown = [name for name in row if name not in _FIELDS[kind]]
    if unknown:
        raise ValueError(
            f"unknown field {unknown[0]!r}; a {kind} line holds {', '.join(_FIELDS[kind])}"
        )


def _header(row: dict[str, Any]) -> dict[str, Any]:
    """The header line checked whole (its kind and format, no unknown field, a valid namespace,
    annotations ``annotate_namespace`` takes, ``exported_at`` a string), with its
    ``annotations`` (``{}`` when absent or null).

    Raises:
        ValueError, KeyError: what is wrong, naming the field.
    """
    if row.get("kind") != "namespace" or row.get("format") not in _KINDS:
        raise ValueError(f"the first line is not an {EXPORT_FORMAT} (or -v1) header")
    _unknown_fields(row, "namespace")
    validate_namespace(row["namespace"])
    annotations = row.get("annotations") or {}
    validate_annotations(annotations)
    if not isinstance(row.get("exported_at", ""), str):
        raise ValueError("invalid exported_at: expected an ISO 8601 time as a string")
    return {**row, "annotations": annotations}


def _kind(row: dict[str, Any], kinds: tuple[str, ...]) -> str:
    """The kind of a line after the header, one of ``kinds``, once its fields are those of
    that kind (ValueError, KeyError otherwise)."""
    kind = row["kind"]
    if not isinstance(kind, str) or kind not in kinds:
        raise ValueError(f"unknown kind {kind!r}; a line after the header is {' or '.join(kinds)}")
    _unknown_fields(row, kind)
    return kind


def _end(row: dict[str, Any]) -> dict[str, Any]:
    """The end line, its counts checked (ValueError, KeyError otherwise)."""
    for field in ("thoughts", "edges"):
        value = row[field]
        if type(value) is not int or value < 0:  # a JSON integer: no bool, no float
            raise ValueError(f"invalid {field}: expected a count (0 or more), found {value!r}")
    return row


def _check_counts(read: NamespaceExport, end: tuple[int, dict[str, Any]] | None, last: int) -> None:
    """Refuse a file without its end line (``end``: its number and row), or whose thoughts and
    edges are not as many as it counts (DatasetError saying what is missing); ``last``: the
    number of the file's last line."""
    if end is None:
        raise DatasetError(
            f'the file ends at line {last} without the end line ({{"kind": "end", ...}}) '
            f"an {EXPORT_FORMAT} export closes with: it was cut short or is not a whole export; "
            f"nothing was written"
        )
    number, row = end
    held = (len(read.thoughts), len(read.edges))
    if held != (row["thoughts"], row["edges"]):
        raise DatasetError(
            f"line {number}: the end line counts {counted(row['thoughts'], 'thought')} and "
            f"{counted(row['edges'], 'edge')}, the file holds {counted(held[0], 'thought')} and "
            f"{counted(held[1], 'edge')}: lines are missing (or were added); nothing was written"
        )


def _object(row: dict[str, Any], field: str) -> dict[str, Any]:
    """``row[field]``, which must be a JSON object holding its id (``thought_id``,
    ``edge_id``: an export always writes it, and a record without one would get a new random
    id); ValueError, KeyError otherwise."""
    value = row[field]
    if not isinstance(value, dict):
        raise ValueError(f"invalid {field}: expected a JSON object, found {json_kind(value)}")
    if f"{field}_id" not in value:
        raise KeyError(f"{field}_id")
    return value


def _embedding(value: object) -> list[float] | None:
    """A thought line's ``embedding``: null, or a non-empty array of numbers with a usable
    length (:func:`~engrava_graph.embeddings.base.norm_problem`); ValueError otherwise."""
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        found = "an empty array" if value == [] else json_kind(value)
        raise ValueError(f"invalid embedding: expected an array of numbers or null, found {found}")
    odd = next((i for i, x in enumerate(value) if json_kind(x) != "number"), None)
    if odd is not None:
        found = json_kind(value[odd])
        raise ValueError(f"invalid embedding.{odd}: expected a number, found {found}")
    try:
        vector = [float(x) for x in value]
    except OverflowError:  # an integer too large for a float
        vector = [math.inf]
    if norm_problem(vector) is not None:
        raise ValueError(f"invalid embedding: {NORM_PROBLEM} ({_NO_VECTOR})")
    return vector


def _json_line(number: int, line: str) -> dict[str, Any]:
    """Line ``number`` parsed: a JSON object.

    Raises:
        DatasetError: not valid JSON (its column in the line, and whether the line looks cut
            short: it ends inside a string or before its value is closed), nested too deeply,
            or not an object.
    """
    text = line.rstrip("\r\n")
    try:
        row = json.loads(text)
    except json.JSONDecodeError as error:
        # The line holds no newline now, so error.pos is the column (0-based) in the line.
        cut = error.msg.startswith("Unterminated string") or error.pos >= len(text.rstrip())
        hint = "; the line looks cut short" if cut else ""
        raise DatasetError(
            f"line {number}, column {error.pos + 1}: not valid JSON ({error.msg}){hint}"
        ) from None
    except RecursionError:
        raise DatasetError(f"line {number}: {TOO_DEEP}") from None
    if not isinstance(row, dict):
        raise DatasetError(
            f"line {number}: expected a JSON object (an export line), found {json_kind(row)}"
        )
    return row


def read_export(lines: Iterable[str]) -> NamespaceExport:
    """Parse and check an export whole: the header, the thoughts, their vectors and the edges
    (blank lines are skipped).

    Raises:
        DatasetError: not an export of these formats, or a line that is not valid JSON, not an
            object, or lacks a field, has an unknown one or an invalid value: one line naming
            the line number and the field. A v2 file without its end line, with a line after
            it, or with other counts than its end line's. A thought id, an edge id or an
            edge's (from, to, type) that an earlier line holds too; an edge that starts or ends
            at a thought no thought line holds.
    """
    header: dict[str, Any] | None = None
    end: tuple[int, dict[str, Any]] | None = None
    thoughts: list[ThoughtRecord] = []
    embeddings: list[list[float] | None] = []
    thought_lines: list[int] = []
    edges: list[EdgeRecord] = []
    edge_lines: list[int] = []
    seen: dict[str, dict[Hashable, int]] = {"thought": {}, "edge": {}, "triple": {}}
    last = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        last = number
        row = _json_line(number, line)
        try:
            if end is not None:
                raise ValueError(f"a line after the end line (line {end[0]}), which ends an export")
            if header is None:
                header = _header(row)
                continue
            kind = _kind(row, _KINDS[header["format"]])
            if kind == "end":
                end = (number, _end(row))
            elif kind == "thought":
                thought = ThoughtRecord.model_validate(_object(row, "thought"))
                _once(
                    seen["thought"],
                    thought.thought_id,
                    number,
                    f"thought id {thought.thought_id!r}",
                )
                thoughts.append(thought)
                embeddings.append(_embedding(row.get("embedding")))
                thought_lines.append(number)
            else:
                edge = EdgeRecord.model_validate(_object(row, "edge"))
                _once(seen["edge"], edge.edge_id, number, f"edge id {edge.edge_id!r}")
                triple = (edge.from_thought_id, edge.to_thought_id, edge.edge_type.value)
                link = f"{triple[0]!r} -[{triple[2]}]-> {triple[1]!r}"
                _once(seen["triple"], triple, number, f"the edge {link}")
                edges.append(edge)
                edge_lines.append(number)
        except (ValueError, KeyError) as error:
            raise DatasetError(f"line {number}: {problem(error)}") from None
    if header is None:
        raise DatasetError("the file is empty")
    read = NamespaceExport(
        header["namespace"], header["annotations"], thoughts, embeddings, edges, thought_lines
    )
    if header["format"] != FORMAT_V1:
        _check_counts(read, end, last)
    _check_ends(edges, edge_lines, {t.thought_id for t in thoughts})
    return read


def read_export_file(path: Path) -> NamespaceExport:
    """:func:`read_export` of the file at ``path`` (``-``: stdin), read as UTF-8.

    Raises:
        DatasetError: as :func:`read_export`; the file cannot be read or is not UTF-8 (named).
    """
    try:
        with open_input(path) as stream:
            return read_export(iter(stream))
    except NotUtf8Error as error:
        raise DatasetError(f"{path}: {problem(error)}") from None


async def _undo_import(
    store: Neo4jEngravaCore, before: dict[str, Any] | None, error: BaseException
) -> None:
    """Remove what a failed import wrote into its namespace, which held no thought: every
    thought, and the namespace itself unless it was registered before (``before``: its
    annotations then, which it gets back; None: it was not registered).

    Raises:
        MigrationError: the removal failed too (``error`` is the import's failure); the
            message says how to clean up.
    """
    try:
        await store.delete_namespace()
        if before is not None:
            await store.ensure_namespace()
            if before:
                await store.annotate_namespace(**before)
    except Exception as undo_error:
        namespace = store.namespace
        raise MigrationError(
            f"the import into {namespace!r} failed ({describe(error)[1]}) and removing what it "
            f"wrote failed too ({describe(undo_error)[1]}); run `engrava-graph delete-namespace "
            f"{namespace} --yes` before importing again"
        ) from error


def _check_dimensions(export: NamespaceExport, dimensions: int) -> None:
    """Refuse a vector the store cannot take (DatasetError naming its line)."""
    for line, vector in zip(export.thought_lines, export.embeddings, strict=True):
        if vector is not None and len(vector) != dimensions:
            raise DatasetError(
                f"line {line}: invalid embedding: {len(vector)} numbers where the store's "
                f"vectors have {dimensions}; export and import with the same dimensions"
            )


async def load_export(store: Neo4jEngravaCore, export: NamespaceExport) -> None:
    """Load ``export`` (checked whole by :func:`read_export`) into ``store``'s namespace, which must
    hold no thoughts: the thoughts in one transaction, then the edges in one, then the
    annotations; should any step fail (or be interrupted), what the earlier ones wrote is
    removed again, so the namespace is as it was.

    Raises:
        DatasetError: a vector has other dimensions than the store's (nothing is written).
        ValidationFailedError: the namespace already holds thoughts (nothing is written).
        MigrationError: a step failed and removing what was written failed too.
    """
    _check_dimensions(export, store.vector_dimensions)
    target = store.namespace
    if await store.count_thoughts(include_expired=True):
        raise ValidationFailedError(
            f"namespace {target!r} already holds thoughts; import into a new one "
            f"(--namespace) or delete it first (delete-namespace)"
        )
    before = await store.namespace_annotations() if await store.namespace_exists() else None
    written = False  # the first write is one transaction: when it fails, nothing was written
    try:
        if export.thoughts:
            await store.bulk_store(export.thoughts, embeddings=export.embeddings)
        else:
            await store.ensure_namespace()
        written = True
        await store.bulk_create_edges(export.edges)
        if export.annotations:
            await store.annotate_namespace(**export.annotations)
    except BaseException as error:
        if written:
            await _undo_import(store, before, error)
        raise
