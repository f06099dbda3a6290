"""How to reach one Neo4j server: the value every step of the resolution order
(:mod:`engrava_graph.graph.connection`) and the local server (:mod:`engrava_graph.graph.server`)
produce."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from engrava_graph.model.errors import ValidationFailedError

Origin = Literal["env", "testcontainers", "local"]
"""Which step of the resolution order found the server."""


@dataclass(frozen=True)
class ConnectionInfo:
    """How to reach one Neo4j server.

    ``database`` is None for the server's default database; ``origin`` says which step of the
    resolution order produced it. The password is left out of ``repr``.

    Raises:
        ValidationFailedError: ``uri`` does not parse as a URI (``bolt://[::1``, a port outside
            0-65535), named as ``NEO4J_URI`` / ``--uri`` (where it came from); the driver's
            own checks (scheme, options) follow when it connects.
    """

    uri: str
    user: str
    password: str = field(repr=False)
    database: str | None = None
    origin: Origin = "env"

    def __post_init__(self) -> None:
        try:
            urlsplit(self.uri).port  # noqa: B018 - parsing the port is the check
        except ValueError as error:
            raise ValidationFailedError(
                f"NEO4J_URI / --uri {self.uri!r} is not a valid URI ({error}); give one such as "
                f"bolt://localhost:7687"
            ) from None
