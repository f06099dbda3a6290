"""The header of a ``.cypher`` file: its leading ``//`` lines, read by people and by tests.

Every statement and fragment opens with what it does, then ``// params:`` (each ``$parameter`` the
body uses, with its type where it is not obvious, or ``none``) and, for statements that return
rows, ``// returns:``. A header may take over a fragment's parameters by naming it:
``// params: the _filter params, $namespace`` (a bare ``_name`` is in the file's own directory).
The tests check that the parameters a header declares are exactly those its body uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engrava_graph.graph.registry import source

_PARAM_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_FRAGMENT_PARAMS_RE = re.compile(r"((?:[A-Za-z0-9_]+/)*_[A-Za-z0-9_]+)\s+params\b")
_PARAMS_START_RE = re.compile(r"^\s*params:", re.IGNORECASE)
_SECTION_RE = re.compile(r"^\s*returns:", re.IGNORECASE)


@dataclass(frozen=True)
class StatementHeader:
    """The leading comment of one ``.cypher`` file.

    Attributes:
        name: the file's path under ``cypher/`` without the suffix.
        lines: the comment lines without their ``//`` (one leading space removed).
        params: the ``$parameters`` named in the ``params:`` entry, without ``$``.
        params_of: fragments whose parameters the header takes over, as registry names.
    """

    name: str
    lines: tuple[str, ...]
    params: frozenset[str]
    params_of: tuple[str, ...]


def header(name: str) -> StatementHeader:
    """Parse the header of the file ``name``.

    Raises:
        CypherRegistryError: the file is missing.
    """
    lines: list[str] = []
    for line in source(name).splitlines():
        if not line.lstrip().startswith("//"):
            break
        text = line.lstrip()[2:]
        lines.append(text[1:] if text.startswith(" ") else text)
    params_text: list[str] = []
    in_params = False
    for line in lines:
        if _PARAMS_START_RE.match(line):
            in_params = True
            line = line.split(":", 1)[1]
        elif _SECTION_RE.match(line):
            in_params = False
        if in_params:
            params_text.append(line)
    joined = " ".join(params_text)
    directory = name.rsplit("/", 1)[0] if "/" in name else ""
    fragments = tuple(
        ref if "/" in ref or not directory else f"{directory}/{ref}"
        for ref in _FRAGMENT_PARAMS_RE.findall(joined)
    )
    return StatementHeader(
        name=name,
        lines=tuple(lines),
        params=frozenset(_PARAM_RE.findall(joined)),
        params_of=fragments,
    )


def declared_params(name: str) -> frozenset[str]:
    """The parameters the header of ``name`` declares, those of named fragments included."""
    head = header(name)
    declared = set(head.params)
    for fragment in head.params_of:
        declared |= declared_params(fragment)
    return frozenset(declared)


def body(name: str) -> str:
    """The Cypher of ``name`` with its fragments expanded and its comment lines removed."""
    return "\n".join(
        ln for ln in source(name).splitlines() if not ln.lstrip().startswith("//")
    ).strip()


def used_params(name: str) -> frozenset[str]:
    """The ``$parameters`` the body of ``name`` uses, its fragments' included."""
    return frozenset(_PARAM_RE.findall(body(name)))
