"""Every error the service returns is JSON ``{"error", "message", "field"}`` with one status.

- ``error``: a stable machine code (``thought_not_found``, ``duplicate_edge``, …);
- ``message``: what went wrong and what to do, for a person;
- ``field``: the request field at fault (dotted path, or a header name), else null.

:data:`engrava_graph.model.error_codes.ERROR_CODES` gives each library error class
(:class:`EngravaGraphError` and its subclasses) a status and code; a class not listed takes its
nearest listed ancestor's. Request validation is 422 ``invalid_request`` (so is text UTF-8 cannot
encode that reached the driver from a path or query value); Neo4j being unreachable is 503 with
``Retry-After``. Anything else is a 500 whose body says only "internal error" and
the request id; the traceback goes to the log, never to the client. That last answer is sent by
:class:`api.middleware.RequestLogMiddleware` (:func:`unexpected_error_response`), not by an
exception handler: Starlette sends a handler's 500 from its outermost middleware and re-raises,
so the request-id header was missing and uvicorn dropped the keep-alive connection.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import neo4j.exceptions
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from engrava_graph.model.error_codes import INVALID_REQUEST, error_code
from engrava_graph.model.errors import (
    EdgeNotFoundError,
    EngravaGraphError,
    InvalidFilterError,
    InvalidNamespaceError,
    InvalidRecencyArgumentError,
    NamespaceNotFoundError,
    Neo4jUnavailableError,
    RecencyModeConflictError,
    ThoughtNotFoundError,
    ValidationFailedError,
    unknown_field_problem,
    validation_message,
)

log = logging.getLogger("api.errors")

NAMESPACE_HEADER = "X-Namespace"

_UNAVAILABLE_MESSAGE = (
    "Neo4j is not reachable right now; retry after Retry-After seconds "
    "(a write that got this answer may or may not have been applied: retry "
    "it with the same ids and read a 409 as done)"
)


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

    def __init__(
        self,
        status: int,
        error: str,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.field = field
        self.headers = headers or {}


def error_body(error: str, message: str, field: str | None = None) -> dict[str, Any]:
    """The JSON body of every error response."""
    return {"error": error, "message": message, "field": field}


def error_response(
    status: int,
    error: str,
    message: str,
    *,
    field: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """A JSON error response."""
    return JSONResponse(error_body(error, message, field), status_code=status, headers=headers)


def _field_of(error: EngravaGraphError) -> str | None:
    """The request field a library error names, when it names one."""
    if isinstance(error, InvalidNamespaceError | NamespaceNotFoundError):
        return NAMESPACE_HEADER
    if isinstance(error, ThoughtNotFoundError):  # every route raising it has it in its path
        return "thought_id"
    if isinstance(error, EdgeNotFoundError):
        return "edge_id"
    if isinstance(error, InvalidFilterError):
        return "metadata_filter"
    if isinstance(error, InvalidRecencyArgumentError):
        return error.argument
    if isinstance(error, RecencyModeConflictError):
        return "recency_now"
    if isinstance(error, ValidationFailedError) and error.errors:
        return _error_field(error.errors[0])
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


_NOT_AN_OBJECT = frozenset({"dict_type", "model_attributes_type"})
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", int: "a number"}


class _BodyContext:
    """What the validation messages of one request may say about its body: the model the
    endpoint reads it into, and its ``Content-Type`` (None: the header is missing)."""

    def __init__(self, model: Any = None, content_type: str | None = None) -> None:
        self.model = model
        self.content_type = content_type

    @classmethod
    def of(cls, request: Request) -> _BodyContext:
        """The endpoint's body model (None without one) and the request's ``Content-Type``."""
        route = request.scope.get("route")
        params = route.dependant.body_params if isinstance(route, APIRoute) else []
        embedded = len(params) != 1 or getattr(params[0].field_info, "embed", False)
        model = None if embedded else params[0].field_info.annotation
        return cls(model, request.headers.get("content-type"))

    @property
    def is_json(self) -> bool:
        """Whether ``Content-Type`` says JSON as FastAPI reads it (``application/json`` or
        ``application/*+json``, parameters aside)."""
        media = (self.content_type or "").split(";")[0].strip().lower()
        return media == "application/json" or (
            media.startswith("application/") and media.endswith("+json")
        )

    def send_json(self) -> str:
        """How to send the body: the header is named only when it is missing or not JSON."""
        if self.is_json:
            return "send a JSON object"
        return "send a JSON object with Content-Type: application/json"

    def not_an_object(self, error: dict[str, Any]) -> str:
        """Why a body that is not a JSON object is refused: what was sent instead (bytes: the
        body was not read as JSON, its ``Content-Type`` missing or not JSON)."""
        value = error.get("input")
        if isinstance(value, bytes | bytearray):
            sent = (
                "without Content-Type" if self.content_type is None else f"as {self.content_type}"
            )
            return f"body: sent {sent}, so not read as JSON; {self.send_json()}"
        kind = "null" if value is None else _JSON_KINDS.get(type(value), "a number")
        return f"body: {kind}, not a JSON object; {self.send_json()}"

    def unknown(self, loc: tuple[Any, ...], field: str) -> str | None:
        """The message for an unknown body field at ``loc``: the fields taken there; None when
        they cannot be told (no body model, or no model at that place)."""
        if loc[:1] != ("body",) or self.model is None:
            return None
        problem = unknown_field_problem(self.model, loc[1:])
        return None if problem is None else f"{field}: {problem}"


def _short(error: dict[str, Any], body: _BodyContext | None = None) -> str:
    """One pydantic error as ``field: message`` (no URL, no input echo). Malformed JSON says
    where; a body that is not an object says what it is and how to send one (naming
    ``Content-Type`` only when the header is missing or not JSON); an unknown body field lists
    the fields taken there."""
    body = body or _BodyContext()
    loc = tuple(error.get("loc", ()))
    msg = validation_message(error)
    if error.get("type") == "json_invalid":
        at = f" at character {loc[1]}" if len(loc) > 1 else ""
        reason = (error.get("ctx") or {}).get("error")
        return f"body: malformed JSON{at}" + (f" ({reason})" if reason else "")
    if loc == ("body",) and error.get("type") == "missing":
        return f"body: the request has none; {body.send_json()}"
    if loc == ("body",) and error.get("type") in _NOT_AN_OBJECT:
        return body.not_an_object(error)
    field = _loc(loc)
    if field and error.get("type") == "extra_forbidden":
        unknown = body.unknown(loc, field)
        if unknown is not None:
            return unknown
    return f"{field}: {msg}" if field else msg


def _validation_message(errors: list[dict[str, Any]], body: _BodyContext | None = None) -> str:
    shown = [_short(e, body) for e in errors[:5]]
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(shown) + more


def _error_field(error: dict[str, Any]) -> str | None:
    """The field one pydantic error names; the body itself for malformed JSON or a non-object."""
    loc = tuple(error.get("loc", ()))
    if loc[:1] == ("body",) and (error.get("type") == "json_invalid" or len(loc) == 1):
        return "body"
    return _loc(loc)


def _retry_after(request: Request) -> dict[str, str]:
    return {"Retry-After": str(request.app.state.settings.retry_after_seconds)}


def _internal(request_id: str, code: str) -> str:
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
        log.error(
            "server-side failure %s on %s (request %s)",
            type(exc).__name__,
            request.url.path,
            getattr(request.state, "request_id", "-"),
            exc_info=exc,
        )
        return error_response(
            status, code, _internal(getattr(request.state, "request_id", "-"), code)
        )
    return error_response(status, code, _message_of(exc), field=_field_of(exc))


def _message_of(error: EngravaGraphError) -> str:
    """A library error's message; pydantic's short messages when it wraps pydantic errors (its
    own text is several lines with a URL)."""
    if isinstance(error, ValidationFailedError) and error.errors:
        return _validation_message(error.errors)
    return str(error)


async def _on_http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HttpError)
    return error_response(exc.status, exc.error, exc.message, field=exc.field, headers=exc.headers)


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    field = _error_field(errors[0]) if errors else None
    message = _validation_message(errors, _BodyContext.of(request))
    return error_response(INVALID_REQUEST.status, INVALID_REQUEST.code, message, field=field)


class _LongInteger:
    """An integer literal with more digits than Python converts (``sys.int_info``'s limit,
    4,300 by default: the JSON parser raises ``ValueError`` on it)."""

    def __init__(self, literal: str) -> None:
        self.digits = len(literal.lstrip("-"))


def _parse_int(literal: str) -> int | _LongInteger:
    limit = sys.get_int_max_str_digits()
    return _LongInteger(literal) if limit and len(literal.lstrip("-")) > limit else int(literal)


def _long_integers(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, _LongInteger]]:
    """``(dotted path, literal)`` of every :class:`_LongInteger` in a parsed document."""
    if isinstance(value, _LongInteger):
        yield ".".join(path), value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _long_integers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _long_integers(item, (*path, str(index)))


def _too_long_integer(body: bytes) -> tuple[str, str] | None:
    """``(field, message)`` for the first integer of ``body`` too long for the JSON parser,
    e.g. ``("top_k", "top_k: an integer of 5000 digits; ...")``; None when there is none."""
    try:
        document = json.loads(body, parse_int=_parse_int)
    except ValueError:
        return None
    found = next(_long_integers(document), None)
    if found is None:
        return None
    field, literal = found
    where = field or "body"
    return where, (
        f"{where}: an integer of {literal.digits} digits; at most "
        f"{sys.get_int_max_str_digits()} digits are read, and no field takes a number that large"
    )


async def _unparsable_body(request: Request, exc: StarletteHTTPException) -> tuple[str, str] | None:
    """``(field, message)`` of the 422 for a JSON body FastAPI could not parse for a reason
    other than bad syntax (its 400 "error parsing the body"): bytes that are not UTF-8 (said
    with the byte and its position), nesting deeper than the JSON parser's recursion limit
    (field ``body``), or an integer with more digits than Python converts (the field that holds
    it, such as ``top_k``); else None."""
    if exc.status_code != 400:
        return None
    cause = exc.__cause__
    if isinstance(cause, ValueError) and not isinstance(cause, UnicodeDecodeError):
        return _too_long_integer(await request.body())
    message = _unparsable_body_message(cause)
    return None if message is None else ("body", message)


def _unparsable_body_message(cause: BaseException | None) -> str | None:
    """The message for a body that is not UTF-8 or nested too deeply (``cause`` is FastAPI's
    parsing error); else None."""
    if isinstance(cause, UnicodeDecodeError):
        byte = cause.object[cause.start : cause.start + 1].hex()
        return (
            f"body: not UTF-8: byte 0x{byte} at position {cause.start} ({cause.reason}); "
            f"send JSON encoded as UTF-8"
        )
    if isinstance(cause, RecursionError):
        return (
            "body: JSON nested too deeply for the parser (about 1,000 levels at most); "
            "send a flatter document"
        )
    return None


async def _on_starlette_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    unparsable = await _unparsable_body(request, exc)
    if unparsable is not None:
        field, message = unparsable
        return error_response(INVALID_REQUEST.status, INVALID_REQUEST.code, message, field=field)
    code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(
        exc.status_code, "http_error"
    )
    return error_response(exc.status_code, code, str(exc.detail), headers=exc.headers)


async def _on_unencodable_text(_: Request, exc: Exception) -> JSONResponse:
    """Text that reached the driver without passing a model (a path or query value) and that
    UTF-8 cannot encode (a lone surrogate): the request's fault, not the server's."""
    assert isinstance(exc, UnicodeEncodeError)
    return error_response(
        INVALID_REQUEST.status,
        INVALID_REQUEST.code,
        "a value is not valid Unicode (a lone surrogate such as \\ud800); send "
        "well-formed UTF-8 text",
    )


async def _on_neo4j_down(request: Request, exc: Exception) -> JSONResponse:
    log.warning("Neo4j unavailable on %s: %s", request.url.path, type(exc).__name__)
    return error_response(
        503, "neo4j_unavailable", _UNAVAILABLE_MESSAGE, headers=_retry_after(request)
    )


def unexpected_error_response(exc: BaseException, request_id: str, path: str) -> JSONResponse:
    """The 500 ``internal`` answer to an exception nothing else handled: the traceback goes to
    the log, the body names only the request id (:mod:`api.middleware` adds its header)."""
    log.error("unhandled %s on %s (request %s)", type(exc).__name__, path, request_id, exc_info=exc)
    return error_response(500, "internal", _internal(request_id, "internal"))


NEO4J_UNAVAILABLE = (
    neo4j.exceptions.ServiceUnavailable,
    neo4j.exceptions.SessionExpired,
    neo4j.exceptions.TransientError,
    neo4j.exceptions.DriverError,
)
"""Driver failures that mean "Neo4j is away or busy": 503, retry later. ``IncompleteCommit``
(a ``DriverError``) lands here too: the write was not acknowledged."""


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the JSON error shape."""
    app.add_exception_handler(EngravaGraphError, _on_library_error)
    app.add_exception_handler(HttpError, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_starlette_error)
    app.add_exception_handler(UnicodeEncodeError, _on_unencodable_text)
    for cls in NEO4J_UNAVAILABLE:
        app.add_exception_handler(cls, _on_neo4j_down)
