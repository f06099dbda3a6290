"""Cycle providers: inject the caller's cognitive cycle once, not on every call.

A cognitive cycle is a logical tick the caller owns (one agent turn, one scheduled pass); it is
never wall-clock time and engrava-graph never advances it. Resolution, as in the peer: an explicit
``current_cycle`` argument always wins (``0`` included); otherwise a configured provider is pulled
and validated; otherwise the cycle is ``None`` (recency off for search; ``consolidate`` and
``run_hygiene`` raise ``ValueError``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from engrava_graph.model.bounds import INT64_MAX
from engrava_graph.model.errors import CycleProviderError


@runtime_checkable
class CycleProvider(Protocol):
    """Anything with ``current_cycle() -> int``."""

    def current_cycle(self) -> int:
        """The current cognitive cycle (a non-negative int)."""
        ...


def validate_cycle(value: object, source: str = "the cycle provider") -> int:
    """Return ``value`` if it is a real ``int`` in 0 .. 2**63-1 (``bool`` rejected; the upper
    end is Neo4j's largest integer, :data:`~engrava_graph.model.bounds.INT64_MAX`).

    Args:
        value: the cycle to check.
        source: where it came from, named in the error message.

    Raises:
        CycleProviderError: for anything else.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT64_MAX:
        raise CycleProviderError(value, source=source)
    return value


def resolve_cycle(explicit: int | None, provider: CycleProvider | None) -> int | None:
    """The cycle a call runs at: explicit argument, else provider, else None.

    Raises:
        CycleProviderError: the explicit value or the provider's value is invalid.
    """
    if explicit is not None:
        return validate_cycle(explicit, "the current_cycle argument")
    if provider is None:
        return None
    return validate_cycle(provider.current_cycle())


class StaticCycleProvider:
    """Always returns the same cycle.

    Raises:
        CycleProviderError: at construction if ``value`` is not a non-negative int.
    """

    def __init__(self, value: int) -> None:
        self._value = validate_cycle(value, "StaticCycleProvider's value")

    def current_cycle(self) -> int:
        """The fixed cycle."""
        return self._value


class CallableCycleProvider:
    """Adapts a zero-argument callable; its purity (no wall clock) is the caller's contract."""

    def __init__(self, fn: Callable[[], int]) -> None:
        self._fn = fn

    def current_cycle(self) -> int:
        """Whatever ``fn()`` returns, validated.

        Raises:
            CycleProviderError: when ``fn()`` is not a non-negative int.
        """
        return validate_cycle(self._fn())


class _MaxCycleSource(Protocol):
    def max_cycle(self) -> Awaitable[int]: ...


class MaxCycleProvider:
    """Snapshots a store's ``max_cycle()`` high-water mark; ``refresh()`` re-reads it.

    Build it with ``await MaxCycleProvider.create(store)``; ``current_cycle()`` returns the cached
    (possibly stale) snapshot, as in the peer.
    """

    def __init__(self, store: _MaxCycleSource, snapshot: int) -> None:
        self._store = store
        self._snapshot = validate_cycle(snapshot, "the store's max_cycle()")

    @classmethod
    async def create(cls, store: _MaxCycleSource) -> MaxCycleProvider:
        """Read the store's mark once and wrap it."""
        return cls(store, await store.max_cycle())

    async def refresh(self) -> int:
        """Re-read the store's mark; returns the new snapshot."""
        self._snapshot = validate_cycle(await self._store.max_cycle(), "the store's max_cycle()")
        return self._snapshot

    def current_cycle(self) -> int:
        """The last snapshot."""
        return self._snapshot
