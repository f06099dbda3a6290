"""Structured logs: one JSON object per line on stderr for the ``api`` loggers.

Fields: ``ts`` (UTC ISO-8601), ``level``, ``logger``, ``msg``, the record's ``extra`` fields (the
access log's request id, route, status, ms, namespace, caller) and ``exc`` for a traceback.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message"}


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        payload.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


def configure_logging(level: str) -> None:
    """Send the ``api`` loggers to stderr as JSON lines at ``level`` (``"INFO"``, …), and the
    warnings of the Neo4j driver and of the library (loggers ``neo4j``, ``engrava_graph``: a
    lost connection, a retried read) the same way."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name, at in (("api", level), ("neo4j", "WARNING"), ("engrava_graph", "WARNING")):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(at)
        logger.propagate = False
