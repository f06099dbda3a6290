"""Operations written once for both clients (the sans-I/O core of ``engrava_graph.client``).

An *operation* is a generator: it yields *effects* (:class:`Exchange`: send one HTTP request;
:class:`Sleep`: wait) and receives their outcomes, then returns its result. It never does I/O
itself, so one definition serves both shells: :class:`SyncDriver` performs the effects with a
blocking ``httpx.Client`` and ``time.sleep``, :class:`AsyncDriver` with ``httpx.AsyncClient`` and
``asyncio.sleep``. Multi-step calls (retries, polling, paging) are plain loops in the operation.

The :class:`operation` and :class:`listing` decorators bind an operation to whichever shell it is
read from: on a :class:`SyncDriver` the method returns the result, on an :class:`AsyncDriver` it
returns an awaitable (a listing: an iterator or an async iterator of items). Type checkers see
the exact signature and return type of each (overloaded ``__get__``).
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Generic,
    ParamSpec,
    TypeAlias,
    TypeVar,
    overload,
)

import httpx

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")


@dataclass(frozen=True)
class Exchange:
    """Effect: send one request; the outcome is an ``httpx.Response``, or the
    ``httpx.TransportError`` that prevented one (returned, not raised, so the operation decides
    whether to retry).

    Attributes:
        method: ``"GET"``, ``"POST"``, ``"PATCH"`` or ``"DELETE"``.
        url: the path under the client's base URL (``/v1/thoughts/<id>``).
        json: the JSON body, or None.
        params: the query parameters, or None.
        timeout: this request's timeouts when they differ from the client's (a large batch
            reads longer), or None.
    """

    method: str
    url: str
    json: Any = None
    params: Mapping[str, Any] | None = None
    timeout: httpx.Timeout | None = None

    def request_args(self) -> dict[str, Any]:
        """Keyword arguments of ``httpx.Client.request`` / ``httpx.AsyncClient.request``."""
        args = {"method": self.method, "url": self.url, "json": self.json, "params": self.params}
        return args if self.timeout is None else {**args, "timeout": self.timeout}


@dataclass(frozen=True)
class Sleep:
    """Effect: wait ``seconds`` (a retry delay or a polling interval); the outcome is None."""

    seconds: float


Effect: TypeAlias = Exchange | Sleep
Op: TypeAlias = Generator[Effect, Any, T]
"""An operation returning ``T``."""
Page: TypeAlias = tuple[list[T], str | None]
"""One page of a listing: its items and the cursor of the next page (None after the last)."""


@dataclass
class Run(Generic[T]):
    """Steps an operation: ``effect`` is what it waits for; None once it has returned
    ``result``. An exception the operation raises propagates out of :meth:`resume`."""

    op: Op[T]
    effect: Effect | None = field(init=False, default=None)
    result: T = field(init=False)

    def __post_init__(self) -> None:
        self.resume(None)

    def resume(self, outcome: Any) -> None:
        """Send the outcome of the current effect and run to the next effect (or the end)."""
        try:
            self.effect = self.op.send(outcome)
        except StopIteration as stop:
            self.effect = None
            self.result = stop.value


class SyncDriver(ABC):
    """A shell that performs effects by blocking (``Client``)."""

    @abstractmethod
    def _perform(self, effect: Effect) -> Any:
        """The outcome of one effect (see :class:`Exchange` and :class:`Sleep`)."""

    def _drive(self, op: Op[T]) -> T:
        run = Run(op)
        while run.effect is not None:
            run.resume(self._perform(run.effect))
        return run.result

    def _iterate(
        self, page: Callable[[str | None], Op[Page[T]]], cursor: str | None
    ) -> Iterator[T]:
        while True:
            items, cursor = self._drive(page(cursor))
            yield from items
            if cursor is None:
                return


class AsyncDriver(ABC):
    """A shell that performs effects on the event loop (``AsyncClient``)."""

    @abstractmethod
    async def _perform(self, effect: Effect) -> Any:
        """The outcome of one effect (see :class:`Exchange` and :class:`Sleep`)."""

    async def _drive(self, op: Op[T]) -> T:
        run = Run(op)
        while run.effect is not None:
            run.resume(await self._perform(run.effect))
        return run.result

    async def _iterate(
        self, page: Callable[[str | None], Op[Page[T]]], cursor: str | None
    ) -> AsyncIterator[T]:
        while True:
            items, cursor = await self._drive(page(cursor))
            for item in items:
                yield item
            if cursor is None:
                return


class _SharedMethod(Generic[P, R]):
    """A method of both clients, written once: ``func(self, ...)`` builds the operation and
    :meth:`_invoke` hands it to the shell it is read from. The bound method keeps the name,
    docstring and parameters of ``func`` (not its ``Op[...]`` return annotation: the shells
    return the result, or an awaitable or iterator of it)."""

    def __init__(self, func: Callable[Concatenate[Any, P], Op[R]]) -> None:
        self.func = func
        functools.update_wrapper(self, func)  # type: ignore[arg-type]  # docs for help(Client)
        signature = inspect.signature(func)
        self._signature = signature.replace(
            parameters=list(signature.parameters.values())[1:], return_annotation=signature.empty
        )

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        bound = functools.partial(self._invoke, obj, self.func.__get__(obj, owner))
        functools.update_wrapper(bound, self.func)
        bound.__signature__ = self._signature  # type: ignore[attr-defined]
        return bound

    @staticmethod
    def _invoke(driver: Any, method: Callable[..., Op[R]], *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class operation(_SharedMethod[P, T]):  # a decorator, lower-case like ``property``
    """Decorator: a call of both clients, written once as an operation returning ``T``.

    Read from a :class:`SyncDriver` the method runs the operation and returns ``T``; read from an
    :class:`AsyncDriver` it returns an awaitable of ``T``.
    """

    if TYPE_CHECKING:

        @overload
        def __get__(self, obj: SyncDriver, owner: type | None = None) -> Callable[P, T]: ...
        @overload
        def __get__(
            self, obj: AsyncDriver, owner: type | None = None
        ) -> Callable[P, Awaitable[T]]: ...
        @overload
        def __get__(self, obj: None, owner: type | None = None) -> operation[P, T]: ...
        def __get__(self, obj: Any, owner: type | None = None) -> Any: ...

    @staticmethod
    def _invoke(driver: Any, method: Callable[..., Op[T]], *args: Any, **kwargs: Any) -> Any:
        return driver._drive(method(*args, **kwargs))


class listing(_SharedMethod[P, Page[T]]):  # a decorator, lower-case like ``property``
    """Decorator: a paged listing of both clients, written once as an operation that takes a
    ``cursor`` keyword and returns one :data:`Page`.

    Read from a :class:`SyncDriver` the method returns an iterator over the items of every page
    (fetched lazily, from the caller's ``cursor`` if one is given); read from an
    :class:`AsyncDriver`, an async iterator.
    """

    if TYPE_CHECKING:

        @overload
        def __get__(
            self, obj: SyncDriver, owner: type | None = None
        ) -> Callable[P, Iterator[T]]: ...
        @overload
        def __get__(
            self, obj: AsyncDriver, owner: type | None = None
        ) -> Callable[P, AsyncIterator[T]]: ...
        @overload
        def __get__(self, obj: None, owner: type | None = None) -> listing[P, T]: ...
        def __get__(self, obj: Any, owner: type | None = None) -> Any: ...

    @staticmethod
    def _invoke(driver: Any, method: Callable[..., Op[Page[T]]], *args: Any, **kwargs: Any) -> Any:
        def page(cursor: str | None) -> Op[Page[T]]:
            return method(*args, **{**kwargs, "cursor": cursor})

        return driver._iterate(page, kwargs.get("cursor"))
