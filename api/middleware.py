"""ASGI middleware: request ids and one structured log line per request; the body size limit;
URL paths that are not UTF-8.

The log line (logger ``api.access``, level INFO) carries ``request_id``, ``method``, ``route``
(the route template, e.g. ``/v1/thoughts/{thought_id}``, never query strings), ``status``, ``ms``,
``namespace`` and the key's label ``caller``; never a body, a key or thought content.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_response, unexpected_error_response

access_log = logging.getLogger("api.access")

REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class RequestLogMiddleware:
    """Give each HTTP request an id (the client's ``X-Request-ID`` when it is a safe token),
    echo it in the response, and log one line when the response is done.

    An exception no handler took becomes the 500 ``internal`` answer here (traceback to the
    log), so it carries the id header and never reaches Starlette's ``ServerErrorMiddleware``,
    which would re-raise it and make uvicorn close a keep-alive connection. Only an exception
    after the response has started still propagates (nothing can be answered then)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = _header(scope, b"x-request-id")
        request_id = given if given and _SAFE_ID.match(given) else uuid.uuid4().hex
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        status = 500
        started = False
        began = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
                message["headers"] = [
                    *message.get("headers", ()),
                    (REQUEST_ID_HEADER.lower().encode(), request_id.encode()),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:
            if started:
                raise
            response = unexpected_error_response(exc, request_id, scope.get("path", ""))
            await response(scope, receive, send_with_id)
        finally:
            route = scope.get("route")
            access_log.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": scope["method"],
                    "route": getattr(route, "path", "<unmatched>"),
                    "status": status,
                    "ms": round((time.perf_counter() - began) * 1000.0, 2),
                    "namespace": state.get("namespace"),
                    "caller": state.get("caller"),
                },
            )


class BodyLimitMiddleware:
    """Refuse request bodies larger than ``max_bytes`` with 413 ``body_too_large``: at once
    when ``Content-Length`` says so, else as soon as the streamed body passes the limit.

    Args:
        app: the wrapped application.
        max_bytes: the largest body accepted.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self) -> str:
        return (
            f"the request body is larger than {self.max_bytes} bytes; send it in parts "
            f"(fewer thoughts or messages per call)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            response = error_response(413, "body_too_large", self._message())
            await response(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(413, self._message())
            return message

        await self.app(scope, counted, send)


class PathEncodingMiddleware:
    """Refuse a URL path that is not UTF-8 once percent-decoded (``/v1/conversations/%FF``)
    with 422 ``invalid_request`` naming ``path``. The server decodes such bytes to U+FFFD, so
    different ids (``%FF``, ``%FE``) would name one conversation or thought.

    Args:
        app: the wrapped application.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if raw is not None:
            try:
                unquote_to_bytes(raw).decode("utf-8")
            except UnicodeDecodeError as exc:
                response = error_response(
                    422,
                    "invalid_request",
                    f"the URL path is not UTF-8 once percent-decoded (byte {exc.start}); "
                    "percent-encode the UTF-8 bytes of each id",
                    field="path",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
