"""API keys and namespaces: who is calling, and which namespace a request may touch.

Every ``/v1`` route depends on one of :data:`ReadAccess`, :data:`WriteAccess` or
:data:`CreateAccess`, which in order:

1. authenticate ``Authorization: Bearer <key>`` (missing or unknown key: 401). The presented key
   is hashed with SHA-256 and compared with every configured digest in constant time
   (:func:`hmac.compare_digest`, no early exit), so timing tells nothing about which key is close;
2. read the namespace from the ``X-Namespace`` header (default ``"default"``; malformed: 422);
3. authorise: a key used outside its namespaces gets 403 whether or not the namespace exists, and
   a read-only key gets 403 on every write;
4. check existence, only for a key allowed to see the namespace: reads and writes on an unknown
   namespace get 404, except the routes that create thoughts (:data:`CreateAccess`), which
   register the namespace on first use.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.errors import NAMESPACE_HEADER, HttpError
from api.query_params import check_query_params
from api.settings import ALL_NAMESPACES, ApiKey
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.model.errors import NamespaceNotFoundError
from engrava_graph.model.namespace import DEFAULT_NAMESPACE, validate_namespace


@dataclass(frozen=True)
class Caller:
    """An authenticated key: its log label, namespaces and write right (never the key)."""

    name: str
    namespaces: frozenset[str]
    read_only: bool

    def may_use(self, namespace: str) -> bool:
        """Whether this key may read (and, unless read-only, write) ``namespace``."""
        return ALL_NAMESPACES in self.namespaces or namespace in self.namespaces


DEV_CALLER = Caller(name="insecure-dev", namespaces=frozenset({ALL_NAMESPACES}), read_only=False)
"""The caller every request is, when the service runs with ``--insecure-dev`` and no keys."""


class KeyRing:
    """The configured keys as SHA-256 digests.

    Args:
        keys: the configured keys; empty means "no authentication" only when ``insecure_dev``.
        insecure_dev: allow an empty key ring (every request is :data:`DEV_CALLER`).

    Raises:
        ValueError: no keys and not ``insecure_dev``.
    """

    def __init__(self, keys: Sequence[ApiKey], *, insecure_dev: bool = False) -> None:
        if not keys and not insecure_dev:
            raise ValueError(
                "no API key is configured: set ENGRAVA_API_KEYS (see docs/api.md), or pass "
                "--insecure-dev to serve without authentication on a development machine"
            )
        self._entries = [
            (
                key.digest(),
                Caller(
                    name=key.name or f"key-{i}",
                    namespaces=frozenset(key.namespaces),
                    read_only=key.read_only,
                ),
            )
            for i, key in enumerate(keys)
        ]
        self.open = not keys

    def authenticate(self, presented: str | None) -> Caller | None:
        """The caller whose key is ``presented``, or None. Compares against every key."""
        if self.open:
            return DEV_CALLER
        if not presented:
            return None
        digest = hashlib.sha256(presented.encode("utf-8")).digest()
        found: Caller | None = None
        for stored, caller in self._entries:
            if hmac.compare_digest(digest, stored):
                found = caller
        return found


class Need(Enum):
    """What a route does with its namespace."""

    READ = "read"
    WRITE = "write"
    CREATE = "create"


@dataclass(frozen=True)
class Access:
    """What a route receives: the authorised caller, the namespace and its store."""

    caller: Caller
    namespace: str
    store: Neo4jEngravaCore


_bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer <key>`.")


def _unauthenticated() -> HttpError:
    return HttpError(
        401,
        "unauthenticated",
        "missing or unknown API key: send `Authorization: Bearer <key>` with a configured key",
        field="Authorization",
        headers={"WWW-Authenticate": "Bearer"},
    )


def _sent_once(request: Request, header: str, what: str) -> None:
    """Refuse a request that repeats ``header`` (422 naming it): which of the values was meant
    cannot be told, and taking the first or the last would be a silent guess."""
    if len(request.headers.getlist(header)) > 1:
        raise HttpError(
            422,
            "invalid_request",
            f"{header} was sent more than once: send one {what} per request",
            field=header,
        )


def _header_text(value: str) -> str:
    """A header value as its sender wrote it: HTTP header bytes reach the app decoded as
    Latin-1 (ASGI, RFC 9110), so UTF-8 text (``café``) arrives as ``cafÃ©``; it is decoded
    again as UTF-8 when it is valid UTF-8, so an error names what was sent."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


async def _authorise(
    request: Request, credentials: HTTPAuthorizationCredentials | None, namespace: str, need: Need
) -> Access:
    state = request.app.state.api
    _sent_once(request, "Authorization", "API key")
    caller = state.keyring.authenticate(credentials.credentials if credentials else None)
    if caller is None:
        raise _unauthenticated()
    request.state.caller = caller.name
    _sent_once(request, NAMESPACE_HEADER, "namespace")
    # An empty header is sent, not absent: refused as invalid, not read as the default.
    namespace = validate_namespace(_header_text(request.headers.get(NAMESPACE_HEADER, namespace)))
    if not caller.may_use(namespace):
        raise HttpError(
            403,
            "namespace_forbidden",
            f"this API key may not use namespace {namespace!r}",
            field=NAMESPACE_HEADER,
        )
    if need is not Need.READ and caller.read_only:
        raise HttpError(403, "read_only_key", "this API key is read-only; writes need another key")
    request.state.namespace = namespace
    store = state.store(namespace)
    if need is not Need.CREATE and not await state.namespace_exists(
        store, for_read=need is Need.READ
    ):
        raise NamespaceNotFoundError(namespace)  # a create registers it in its own transaction
    return Access(caller=caller, namespace=namespace, store=store)


def _dependency(need: Need) -> Callable[..., Awaitable[Access]]:
    """The FastAPI dependency that authorises a route's ``need``."""

    async def access(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        namespace: Annotated[
            str,
            Header(
                alias=NAMESPACE_HEADER,
                description="The namespace (1-64 of A-Z a-z 0-9 _ -) the request works in.",
            ),
        ] = DEFAULT_NAMESPACE,
    ) -> Access:
        granted = await _authorise(request, credentials, namespace, need)
        check_query_params(request)  # after the key: a caller without one learns nothing more
        return granted

    return access


ReadAccess = Annotated[Access, Depends(_dependency(Need.READ))]
"""A route that reads an existing namespace."""
WriteAccess = Annotated[Access, Depends(_dependency(Need.WRITE))]
"""A route that changes an existing namespace (needs a key that may write)."""
CreateAccess = Annotated[Access, Depends(_dependency(Need.CREATE))]
"""A route that may create the namespace (storing thoughts)."""
