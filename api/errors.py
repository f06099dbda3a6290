"""Every error the service returns is JSON ``{"error", "message", "field"}`` with one status.

- ``error``: a stable machine code (``thought_not_found``, ``duplicate_edge``, …);
- ``message``: what went wrong and what to do, for a person;
- ``field``: the request field at fault (dotted path, or a header name), else null.

:data:`engrava_graph.error_codes.ERROR_CODES` gives each library error class
(:class:`EngravaGraphError` and its subclasses) a status and code; a class not listed takes its
nearest listed ancestor's. Request validation is 422 ``invalid_request``; Neo4j being unreachable
is 503 with ``Retry-After``. Anything else is a 500 whose body says only "internal error" and
the request id; the traceback goes to the log, never to the client.
"""

from __future__ import annotations

import logging
from typing import Any

import neo4j.exceptions
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from engrava_graph.error_codes import INVALID_REQUEST, error_code
from engrava_graph.model.errors import (
    EngravaGraphError,
    InvalidFilterError,
    InvalidNamespaceError,
    InvalidRecencyArgumentError,
    NamespaceNotFoundError,
    Neo4jUnavailableError,
    RecencyModeConflictError,
    ValidationFailedError,
)

log = logging.getLogger("api.errors")

NAMESPACE_HEADER = "X-Namespace"

_UNAVAILABLE_MESSAGE = ("Neo4j is not reachable right now; retry after Retry-After seconds "
                        "(a write that got this answer may or may not have been applied: retry "
                        "it with the same ids and read a 409 as done)")


class HttpError(Exception):
    """An error the HTTP layer raises itself (authentication, authorisation, unknown jobs);
    not a library error (the Python client's ``engrava_graph.model.errors.ApiError`` is the
    other side of these).

    Args:
        status: the HTTP status.
        error: the machine code.
        message: what to do, for a person.
        field: the request field at fault, if any.
        headers: extra response headers (``WWW-Authenticate``, ``Retry-After``).
    """

    def __init__(self, status: int, error: str, message: str, *, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.field = field
        self.headers = headers or {}


def error_body(error: str, message: str, field: str | None = None) -> dict[str, Any]:
    """The JSON body of every error response."""
    return {"error": error, "message": message, "field": field}


def error_response(status: int, error: str, message: str, *, field: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    """A JSON error response."""
    return JSONResponse(error_body(error, message, field), status_code=status, headers=headers)


def _field_of(error: EngravaGraphError) -> str | None:
    """The request field a library error names, when it names one."""
    if isinstance(error, InvalidNamespaceError | NamespaceNotFoundError):
        return NAMESPACE_HEADER
    if isinstance(error, InvalidFilterError):
        return "metadata_filter"
    if isinstance(error, InvalidRecencyArgumentError):
        return error.argument
    if isinstance(error, RecencyModeConflictError):
        return "recency_now"
    if isinstance(error, ValidationFailedError) and error.errors:
        return _loc(error.errors[0].get("loc", ()))
    return getattr(error, "field", None)


_UNION_TAGS = frozenset({"str", "int", "float", "bool", "none", "dict", "list"})


def _loc(loc: Any) -> str | None:
    """``("body", "thoughts", 3, "essence")`` -> ``"thoughts.3.essence"``; headers by name.

    pydantic's union-branch tags (``str-enum[Pathway]``, ``int``) are not fields and are left
    out."""
    parts = [str(p) for p in loc]
    if parts[:1] == ["header"] and len(parts) > 1:
        return parts[1]
    if parts[:1] in (["body"], ["query"], ["path"]):
        parts = parts[1:]
    kept = parts[:1] + [p for p in parts[1:] if "[" not in p and p not in _UNION_TAGS]
    return ".".join(kept) or None


def _validation_message(errors: list[dict[str, Any]]) -> str:
    shown = [f"{_loc(e.get('loc', ())) or 'body'}: {e.get('msg', 'invalid')}" for e in errors[:5]]
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(shown) + more


def _retry_after(request: Request) -> dict[str, str]:
    return {"Retry-After": str(request.app.state.settings.retry_after_seconds)}


def _internal(request: Request, code: str) -> str:
    request_id = getattr(request.state, "request_id", "-")
    return f"internal error ({code}); the service log has the details under request id {request_id}"


async def _on_library_error(request: Request, exc: Exception) -> JSONResponse:
    """A library error: its table status; a server-side one (500) says only its code, and the
    details go to the log."""
    assert isinstance(exc, EngravaGraphError)
    status, code = error_code(exc)
    if status == 503:
        message = _UNAVAILABLE_MESSAGE if isinstance(exc, Neo4jUnavailableError) else str(exc)
        return error_response(status, code, message, headers=_retry_after(request))
    if status >= 500:
        log.error("server-side failure %s on %s (request %s)", type(exc).__name__,
                  request.url.path, getattr(request.state, "request_id", "-"), exc_info=exc)
        return error_response(status, code, _internal(request, code))
    return error_response(status, code, str(exc), field=_field_of(exc))


async def _on_http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HttpError)
    return error_response(exc.status, exc.error, exc.message, field=exc.field,
                          headers=exc.headers)


async def _on_validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    field = _loc(errors[0].get("loc", ())) if errors else None
    return error_response(INVALID_REQUEST.status, INVALID_REQUEST.code, _validation_message(errors),
                          field=field)


async def _on_starlette_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail), headers=exc.headers)


async def _on_neo4j_down(request: Request, exc: Exception) -> JSONResponse:
    log.warning("Neo4j unavailable on %s: %s", request.url.path, type(exc).__name__)
    return error_response(503, "neo4j_unavailable", _UNAVAILABLE_MESSAGE,
                          headers=_retry_after(request))


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled %s on %s (request %s)", type(exc).__name__, request.url.path,
              getattr(request.state, "request_id", "-"), exc_info=exc)
    return error_response(500, "internal", _internal(request, "internal"))


NEO4J_UNAVAILABLE = (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired,
                     neo4j.exceptions.TransientError, neo4j.exceptions.DriverError)
"""Driver failures that mean "Neo4j is away or busy": 503, retry later. ``IncompleteCommit``
(a ``DriverError``) lands here too: the write was not acknowledged."""


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the JSON error shape."""
    app.add_exception_handler(EngravaGraphError, _on_library_error)
    app.add_exception_handler(HttpError, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_starlette_error)
    for cls in NEO4J_UNAVAILABLE:
        app.add_exception_handler(cls, _on_neo4j_down)
    app.add_exception_handler(Exception, _on_unexpected)
