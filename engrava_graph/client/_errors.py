"""The service's error answers turned back into the library's typed errors.

Every error answer of the REST service is JSON ``{"error", "message", "field"}`` with one status
(``api/errors.py``), from the table in ``engrava_graph/model/error_codes.py``. :data:`ERROR_CLASSES`
maps the machine code ``error`` back to the class the library itself raises for it, so
``except DuplicateEdgeError`` works the same in-process and over HTTP; a code it does not know
maps by status (401, 403), else to :class:`ApiError`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import httpx

from engrava_graph.model.error_codes import ERROR_CODES, INVALID_REQUEST
from engrava_graph.model.errors import (
    ApiError,
    AuthenticationError,
    EngravaGraphError,
    PermissionDeniedError,
    ValidationFailedError,
)

ERROR_CLASSES: dict[str, type[EngravaGraphError]] = {
    **{code: cls for cls, (_, code) in ERROR_CODES.items() if cls is not EngravaGraphError},
    INVALID_REQUEST.code: ValidationFailedError,
}
"""The class raised for each ``error`` code of the service: :data:`ERROR_CODES` read backwards
(but the root's catch-all ``bad_request``), plus the service's request validation. The HTTP
layer's own 401/403 codes (``unauthenticated``, ``namespace_forbidden``, ``read_only_key``) map by
status below."""

_BY_STATUS: dict[int, type[ApiError]] = {401: AuthenticationError, 403: PermissionDeniedError}
_SNIPPET_CHARS = 300


def error_from_response(
    response: httpx.Response, context: Mapping[str, Any] | None = None
) -> EngravaGraphError:
    """The typed error of an error answer (status >= 400).

    A library error class gets the service's message (not its own formatted one) and, as
    attributes, what its constructor would have set, taken from ``context`` (the call's
    arguments: ``thought_id``, ``edge_id``, ...) or None when the call did not know it. Every
    error also gets ``status``, ``code`` and ``field`` from the answer.

    Args:
        response: the service's answer.
        context: what the call was about, by the error classes' constructor argument names.

    Returns:
        The error to raise (the caller raises it).
    """
    code, message, field = _body(response)
    cls = ERROR_CLASSES.get(code) or _BY_STATUS.get(response.status_code, ApiError)
    if issubclass(cls, ApiError):
        return cls(message, status=response.status_code, code=code, field=field)
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    for name, default in _attributes(cls).items():
        setattr(error, name, (context or {}).get(name, default))
    if isinstance(error, ValidationFailedError):
        error.errors = list(error.errors)
    vars(error).update(status=response.status_code, code=code, field=field)
    return error


def _attributes(cls: type[EngravaGraphError]) -> dict[str, Any]:
    """The attributes a library error's own constructor sets, as ``{name: default}`` (its
    named parameters but ``message``; default None for a required one)."""
    if not inspect.isfunction(cls.__init__):  # the constructor of Exception: no attributes
        return {}
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {
        name: None if p.default is p.empty else p.default
        for name, p in list(inspect.signature(cls.__init__).parameters.items())[1:]
        if p.kind in named and name != "message"
    }


def _body(response: httpx.Response) -> tuple[str, str, str | None]:
    """``(code, message, field)`` of an error answer; an answer that is not the service's JSON
    (a proxy's page, say) gives ``("http_error", <start of its text>, None)``."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        field = body.get("field")
        return (
            body["error"],
            str(body.get("message") or body["error"]),
            field if isinstance(field, str) else None,
        )
    text = response.text.strip()[:_SNIPPET_CHARS] or response.reason_phrase
    return "http_error", f"HTTP {response.status_code}: {text}", None
