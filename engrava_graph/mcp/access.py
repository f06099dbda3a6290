"""Who may use which memory over MCP, and how failures reach the client.

:class:`StoreSource` hands each tool (resource, prompt) the store of the namespace it names after
checking the caller's rights: on streamable HTTP the caller's API key (``Authorization: Bearer``,
the REST service's keys and rules), over stdio the local user (every namespace).
:func:`tool_errors` turns library errors into MCP tool errors ``"<code>: <message>"`` with the
REST service's error codes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Protocol

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.model.error_codes import error_code
from engrava_graph.model.errors import (
    EngravaGraphError,
    NamespaceNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.namespace import DEFAULT_NAMESPACE, validate_namespace


class Rights(Protocol):
    """What a caller may do (the REST service's ``api.auth.Caller`` is one)."""

    read_only: bool

    def may_use(self, namespace: str) -> bool:
        """Whether the caller may read (and, unless read-only, write) ``namespace``."""
        ...


Authenticate = Callable[[str | None], Rights | None]
"""A presented API key (None: none) -> the caller's rights, or None for an unknown key."""


class _LocalUser:
    """The user who started a stdio server: every namespace, reads and writes."""

    read_only = False

    def may_use(self, namespace: str) -> bool:
        return True


LOCAL_USER = _LocalUser()


def local_user(_key: str | None) -> Rights:
    """:data:`Authenticate` of a stdio server: whoever started the process may do anything."""
    return LOCAL_USER


class StoreSource:
    """Where the tools get their stores: one connection (attached when the server starts), a
    store per namespace, and who the caller is.

    Args:
        authenticate: the caller's rights from the key the request presents (over HTTP the
            REST service's key ring; over stdio :func:`local_user`).
        namespace: the namespace of a call that names none.

    Raises:
        InvalidNamespaceError: a malformed ``namespace``.
    """

    def __init__(
        self, authenticate: Authenticate = local_user, namespace: str = DEFAULT_NAMESPACE
    ) -> None:
        self.authenticate = authenticate
        self.namespace = validate_namespace(namespace)
        self._base: Neo4jEngravaCore | None = None

    def attach(self, base: Neo4jEngravaCore | None) -> None:
        """Use ``base``'s connection, provider and options from now on (None: detach)."""
        self._base = base

    def caller(self, headers: Mapping[str, str] | None) -> Rights:
        """The rights of the caller whose ``Authorization: Bearer`` key the request carries.

        Raises:
            ToolError: no key or an unknown key (the HTTP gate refuses those first).
        """
        caller = self.authenticate(bearer_key(headers))
        if caller is None:
            raise ToolError("unauthenticated: missing or unknown API key")
        return caller

    async def store(
        self, ctx: Context, namespace: str | None, *, write: bool = False, create: bool = False
    ) -> Neo4jEngravaCore:
        """The store of ``namespace`` (default the server's) after checking the caller's rights.

        Args:
            ctx: the tool call's context (its HTTP headers carry the key).
            namespace: the namespace the call names, or None.
            write: the tool changes the memory (a read-only key is refused).
            create: the tool may create the namespace (else a missing one is an error).

        Raises:
            ToolError: the key may not use the namespace, or may not write.
            NamespaceNotFoundError: the namespace does not exist and ``create`` is off.
        """
        chosen = validate_namespace(self.namespace if namespace is None else namespace)
        caller = self.caller(_headers(ctx))
        if not caller.may_use(chosen):
            raise ToolError(f"namespace_forbidden: this API key may not use namespace {chosen!r}")
        if write and caller.read_only:
            raise ToolError("read_only_key: this API key is read-only; writes need another key")
        if self._base is None:
            raise ToolError("unavailable: the memory is not connected yet; retry")
        store = self._base.for_namespace(chosen)
        if not create and not await store.namespace_exists():
            raise NamespaceNotFoundError(chosen)
        return store


def bearer_key(headers: Mapping[str, str] | None) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header (names case-insensitive as HTTP
    headers are; Starlette's and the SDK's mappings are), else None."""
    scheme, _, key = (headers or {}).get("authorization", "").partition(" ")
    return (key.strip() or None) if scheme.lower() == "bearer" else None


def _headers(ctx: Context) -> Mapping[str, str] | None:
    """The HTTP headers of the call, None over stdio (or outside a request)."""
    try:
        return ctx.headers
    except ValueError:
        return None


@asynccontextmanager
async def tool_errors() -> AsyncIterator[None]:
    """Turn library and validation errors into MCP tool errors ``"<code>: <message>"`` (the
    REST service's codes, :mod:`engrava_graph.model.error_codes`), never a traceback."""
    try:
        yield
    except EngravaGraphError as error:
        status, code = error_code(error)
        message = str(error) if status < 500 else "the memory service failed; see its log"
        raise ToolError(f"{code}: {message}") from error
    except ValidationError as error:
        raise ToolError(
            f"validation_failed: {ValidationFailedError.from_pydantic(error)}"
        ) from error
