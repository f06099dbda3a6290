"""ReadOnlyEngrava: a view of a store whose reads pass and whose writes raise.

Which methods write is read from the store itself: the ``@writes`` marker
(:mod:`engrava_graph.store.modes`). Every other public coroutine method of the store is a read;
reads delegated through the view never record implicit accesses.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from engrava_graph.model.errors import ReadOnlyViolationError
from engrava_graph.store import Neo4jEngravaCore
from engrava_graph.store.modes import is_write


def _public_coroutine_methods(cls: type) -> dict[str, Callable[..., Any]]:
    return {
        name: member
        for name, member in inspect.getmembers(cls, inspect.iscoroutinefunction)
        if not name.startswith("_")
    }


_METHODS = _public_coroutine_methods(Neo4jEngravaCore)
WRITE_METHODS = frozenset(name for name, method in _METHODS.items() if is_write(method))
"""The store's public methods marked ``@writes``: refused by the view."""
READ_METHODS = frozenset(_METHODS) - WRITE_METHODS
"""The store's other public coroutine methods: delegated by the view."""


class ReadOnlyEngrava:
    """Wraps a :class:`Neo4jEngravaCore`: the read methods work, the write methods raise.

    Raises:
        ReadOnlyViolationError: on any write method.
        AttributeError: for a name that is neither a read nor a write method of the store.
    """

    def __init__(self, store: Neo4jEngravaCore) -> None:
        self._store = store

    @property
    def namespace(self) -> str:
        """The wrapped store's namespace."""
        return self._store.namespace

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name in WRITE_METHODS:

            async def refuse(*_: Any, **__: Any) -> Any:
                raise ReadOnlyViolationError(name)

            return refuse
        if name not in READ_METHODS:
            raise AttributeError(f"ReadOnlyEngrava has no method {name!r}")
        method = getattr(self._store, name)

        @functools.wraps(method)
        async def read(*args: Any, **kwargs: Any) -> Any:
            token = self._store.suppress_access_tracking()
            try:
                return await method(*args, **kwargs)
            finally:
                self._store.resume_access_tracking(token)

        return read
