"""The Cypher registry: every statement lives in a ``.cypher`` file under ``cypher/``.

Code never holds Cypher text. It asks the registry for a statement by name
(``cypher("thoughts/get")`` reads ``cypher/thoughts/get.cypher``); a missing file fails at import
time, so a broken install fails at start-up, not on the first request.

A file may contain identifier slots ``{{name}}``. They are filled only from enum members
(labels, relationship types, constraint names derived from them), never from request data;
values always travel as ``$parameters``. ``{{ALL_EDGE_TYPES}}`` expands to every
:class:`~engrava_graph.model.enums.EdgeType` joined by ``|``, so a pattern like
``[r:{{ALL_EDGE_TYPES}}]`` lets the planner use the per-type indexes.

Fragments (``_name.cypher``) are spliced into statements with ``{{> dir/_name}}``; composition
happens here, from named files, and :meth:`CypherStatement.text` is what runs.

A statement is rendered for one :class:`CypherDialect`. For :attr:`CypherDialect.CYPHER25` (Neo4j
2026.01 and later) a file under ``cypher/cypher25/`` takes the place of the file of the same name
(``cypher/cypher25/retrieval/_cosine.cypher`` for ``retrieval/_cosine``: the same value, computed on
``VECTOR`` values with ``vector_distance``), and the statement runs as ``CYPHER 25``. A caller
renders both (:func:`cypher_by_dialect`) and picks the one of its server's line
(:attr:`~engrava_graph.graph.dialect.ServerLine.dialect`).
``engrava-graph cypher show NAME`` prints it with its header, and ``engrava-graph cypher profile
"QUESTION"`` runs one retrieve with every read under ``PROFILE`` (db hits and rows per statement,
and with ``--browser`` each statement with a ``:params`` block to paste into Neo4j Browser).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path

from engrava_graph.model.enums import EdgeType

_OVERLAY = "cypher25"
_CYPHER25_PREFIX = "CYPHER 25"
_SLOT_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_INCLUDE_RE = re.compile(r"\{\{>\s*([A-Za-z0-9_/]+)\s*\}\}")
_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CypherDialect(Enum):
    """The Cypher a statement is rendered for.

    Attributes:
        CYPHER5: every supported Neo4j line (5.26 LTS and later): embeddings are read as
            ``LIST<FLOAT>`` and compared with ``vector.similarity.cosine``.
        CYPHER25: Neo4j 2026.01 and later: the ``cypher/cypher25/`` files replace their
            namesakes (embeddings turned into ``VECTOR`` values and compared with
            ``vector_distance``, a third of the server time), and the statement runs as
            ``CYPHER 25``.
    """

    CYPHER5 = "cypher5"
    CYPHER25 = "cypher25"


class CypherRegistryError(RuntimeError):
    """A statement file is missing, or a slot is unfilled or filled with a non-enum value."""


@dataclass(frozen=True)
class CypherStatement:
    """A named, fully rendered Cypher statement (parameters only, no request data inside).

    Attributes:
        name: its path under ``cypher/`` without the suffix, e.g. ``"thoughts/get"``.
        text: the Cypher that runs.
    """

    name: str
    text: str


def cypher_root() -> Path:
    """The directory holding the ``.cypher`` files: ``engrava_graph/_cypher`` in an installed
    wheel (``cypher/`` shipped as package data), else ``cypher/`` of the source checkout."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "_cypher"
    return installed if installed.is_dir() else package.parent / "cypher"


@cache
def _read(name: str, dialect: CypherDialect = CypherDialect.CYPHER5) -> str:
    root = cypher_root()
    if dialect is CypherDialect.CYPHER25 and (root / _OVERLAY / f"{name}.cypher").is_file():
        return (root / _OVERLAY / f"{name}.cypher").read_text(encoding="utf-8")
    path = root / f"{name}.cypher"
    if not path.is_file():
        raise CypherRegistryError(f"Cypher statement {name!r} not found at {path}")
    return path.read_text(encoding="utf-8")


def _fragment_body(name: str, dialect: CypherDialect) -> str:
    """A fragment's text without its header comment lines, trimmed."""
    lines = [ln for ln in _read(name, dialect).splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def _expand_includes(text: str, dialect: CypherDialect, depth: int = 0) -> str:
    if depth > 4:
        raise CypherRegistryError("fragment includes nest deeper than 4 levels")
    return _INCLUDE_RE.sub(
        lambda m: _expand_includes(_fragment_body(m.group(1), dialect), dialect, depth + 1), text
    )


def _as_cypher25(text: str) -> str:
    """``text`` with ``CYPHER 25`` before its first line of code (after the header comment),
    unless it is there already."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if not ln.lstrip().startswith("//")), len(lines))
    if first < len(lines) and lines[first].lstrip().startswith(_CYPHER25_PREFIX):
        return text
    return "\n".join([*lines[:first], _CYPHER25_PREFIX, *lines[first:]])


def source(name: str, dialect: CypherDialect = CypherDialect.CYPHER5) -> str:
    """The file ``name`` with its fragments expanded and its slots left as ``{{slot}}``.

    Raises:
        CypherRegistryError: the file or one of its fragments is missing.
    """
    text = _expand_includes(_read(name, dialect), dialect)
    return _as_cypher25(text) if dialect is CypherDialect.CYPHER25 else text


def _identifier(slot: str, value: object) -> str:
    if not isinstance(value, Enum):
        raise CypherRegistryError(f"slot {{{{{slot}}}}} takes an enum member, got {value!r}")
    text = str(value.value)
    if not _IDENTIFIER_RE.match(text):
        raise CypherRegistryError(f"enum value {text!r} is not a safe Cypher identifier")
    return text


def cypher(
    name: str, dialect: CypherDialect = CypherDialect.CYPHER5, **identifiers: Enum
) -> CypherStatement:
    """Load, compose and render the statement ``name``.

    Args:
        name: path under ``cypher/`` without ``.cypher``.
        dialect: the Cypher to render it for (:class:`CypherDialect`).
        **identifiers: enum members for the file's ``{{slot}}`` identifiers.

    Returns:
        The rendered statement.

    Raises:
        CypherRegistryError: missing file, unfilled slot, or a non-enum identifier.
    """
    text = source(name, dialect)
    fills = {k: _identifier(k, v) for k, v in identifiers.items()}
    fills["ALL_EDGE_TYPES"] = "|".join(t.value for t in EdgeType)

    def fill(match: re.Match[str]) -> str:
        slot = match.group(1)
        if slot not in fills:
            raise CypherRegistryError(f"{name}: slot {{{{{slot}}}}} was not filled")
        return fills[slot]

    return CypherStatement(name=name, text=_SLOT_RE.sub(fill, text))


def cypher_by_dialect(name: str, **identifiers: Enum) -> dict[CypherDialect, CypherStatement]:
    """The statement ``name`` rendered for every :class:`CypherDialect` (the same statement twice
    when no file under ``cypher/cypher25/`` concerns it, but for ``CYPHER 25``).

    Raises:
        CypherRegistryError: as :func:`cypher`.
    """
    return {dialect: cypher(name, dialect, **identifiers) for dialect in CypherDialect}


def list_statements() -> list[str]:
    """Every statement name under ``cypher/``; fragments (names starting with ``_``) excluded."""
    root = cypher_root()
    return sorted(
        str(p.relative_to(root).with_suffix(""))
        for p in root.rglob("*.cypher")
        if not p.name.startswith("_") and p.relative_to(root).parts[0] != _OVERLAY
    )
