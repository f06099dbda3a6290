"""Which store methods write: the ``@writes`` marker.

:class:`~engrava_graph.read_only.ReadOnlyEngrava` reads the marker to refuse those methods; every
other public coroutine method of the store is a read. A unit test lists both sets, so a new
public method must be classified on purpose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_MARK = "__engrava_writes__"

Method = TypeVar("Method", bound=Callable[..., Any])


def writes(method: Method) -> Method:
    """Mark a store method as one that writes (it is refused by a read-only view).

    Returns:
        ``method`` itself (still a coroutine function), with the marker set.
    """
    setattr(method, _MARK, True)
    return method


def is_write(method: Callable[..., Any]) -> bool:
    """Whether ``method`` carries the :func:`writes` marker."""
    return getattr(method, _MARK, False) is True
