"""Errors raised while locating or starting a Neo4j server."""


class Neo4jUnavailableError(RuntimeError):
    """No Neo4j server can be reached or started.

    Raised when ``NEO4J_URI`` is unset, no Docker engine answers, and the local server cannot be
    used: Java 17/21 or Maven is missing, the Maven assembly or the JVM failed, the server did not
    answer in time, or the caller asked not to start it. The message says what to install or run.
    """
