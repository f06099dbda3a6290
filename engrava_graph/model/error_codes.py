"""The one table of error codes: each library error class -> ``(HTTP status, machine code)``.

The REST service (``api/errors.py``) answers a library error with its class's status and code;
the Python client (``engrava_graph.client``) reads the table backwards, code -> class, so
``except DuplicateEdgeError`` works the same in-process and over HTTP. No web code here.

A class not listed takes its nearest listed ancestor's entry (:func:`error_code`); the unit
tests require every library error class to be listed and every code to be unique.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from engrava_graph.model import errors


class ErrorCode(NamedTuple):
    """How the REST service answers one error.

    Attributes:
        status: the HTTP status (4xx: the caller's fault; 5xx: the service's or Neo4j's).
        code: the stable machine code, the ``error`` field of the JSON body
            (``thought_not_found``).
    """

    status: int
    code: str


ERROR_CODES: Mapping[type[errors.EngravaGraphError], ErrorCode] = MappingProxyType(
    {
        errors.EngravaGraphError: ErrorCode(400, "bad_request"),
        errors.ValidationFailedError: ErrorCode(422, "validation_failed"),
        errors.InvalidQueryError: ErrorCode(422, "invalid_query"),
        errors.InvalidFilterError: ErrorCode(422, "invalid_filter"),
        errors.InvalidRecencyArgumentError: ErrorCode(422, "invalid_recency_argument"),
        errors.RecencyModeConflictError: ErrorCode(422, "recency_mode_conflict"),
        errors.InvalidNamespaceError: ErrorCode(422, "invalid_namespace"),
        errors.ReferentialIntegrityError: ErrorCode(422, "unknown_endpoint"),
        errors.ThoughtNotFoundError: ErrorCode(404, "thought_not_found"),
        errors.EdgeNotFoundError: ErrorCode(404, "edge_not_found"),
        errors.NamespaceNotFoundError: ErrorCode(404, "namespace_not_found"),
        errors.DuplicateThoughtError: ErrorCode(409, "duplicate_thought"),
        errors.RepeatedThoughtIdError: ErrorCode(422, "repeated_thought_id"),
        errors.DuplicateEdgeError: ErrorCode(409, "duplicate_edge"),
        errors.MessageConflictError: ErrorCode(409, "message_conflict"),
        errors.RepeatedMessageIdError: ErrorCode(422, "repeated_message_id"),
        errors.InvalidTransitionError: ErrorCode(409, "invalid_transition"),
        errors.StaleDataError: ErrorCode(409, "stale_data"),
        errors.InvalidStoredRecordError: ErrorCode(409, "invalid_stored_record"),
        errors.ReadOnlyViolationError: ErrorCode(403, "read_only"),
        errors.Neo4jUnavailableError: ErrorCode(503, "neo4j_unavailable"),
        errors.SchemaVersionError: ErrorCode(503, "schema_not_current"),
        errors.EmbeddingDimensionMismatchError: ErrorCode(500, "embedding_dimension_mismatch"),
        errors.EmbeddingError: ErrorCode(500, "embedding_failed"),
        errors.CycleProviderError: ErrorCode(500, "cycle_provider_failed"),
        errors.CycleRequiredError: ErrorCode(422, "cycle_required"),
        errors.DatasetError: ErrorCode(422, "invalid_dataset"),
        errors.HygienePolicyMissingError: ErrorCode(500, "hygiene_policy_missing"),
        errors.MigrationError: ErrorCode(500, "migration_failed"),
        errors.MigrationInputError: ErrorCode(422, "invalid_migration_input"),
        errors.MissingExtraError: ErrorCode(501, "extra_not_installed"),
    }
)
"""Status and code per library error class (read-only). The root's ``bad_request`` is the
fallback for a class nobody listed; the client does not map it back (any class could be behind
it) and raises ``ApiError`` for it."""

INVALID_REQUEST = ErrorCode(422, "invalid_request")
"""The answer to a request the service rejects before any library call (its FastAPI/pydantic
request validation); the client raises it as ``ValidationFailedError``."""


def error_code(error: errors.EngravaGraphError) -> ErrorCode:
    """The status and code of a library error: its class's entry, else its nearest ancestor's.

    Args:
        error: any :class:`EngravaGraphError`.

    Returns:
        ``(status, code)``, e.g. ``ErrorCode(status=404, code="thought_not_found")``.
    """
    return next(
        ERROR_CODES[cls]
        for cls in type(error).__mro__  # type: ignore[index]
        if cls in ERROR_CODES
    )
