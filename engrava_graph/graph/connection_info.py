"""How to reach one Neo4j server: the value every step of the resolution order
(:mod:`engrava_graph.graph.connection`) and the local server (:mod:`engrava_graph.graph.server`)
produce."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Origin = Literal["env", "testcontainers", "local"]
"""Which step of the resolution order found the server."""


@dataclass(frozen=True)
class ConnectionInfo:
    """How to reach one Neo4j server.

    ``database`` is None for the server's default database; ``origin`` says which step of the
    resolution order produced it. The password is left out of ``repr``.
    """

    uri: str
    user: str
    password: str = field(repr=False)
    database: str | None = None
    origin: Origin = "env"
