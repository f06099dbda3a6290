"""The embedding provider contract, and the two ways the library calls a provider."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Sequence
from typing import Final, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from engrava_graph.model.errors import EmbeddingError


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into vectors.

    ``embed`` is synchronous (typically a CPU-bound model forward pass). The library's async
    code calls it only through :func:`embed_off_loop`, i.e. from a worker thread, so a provider
    shared by concurrent requests must tolerate calls from several threads (serialising them
    itself if it has to, as :class:`SentenceTransformerProvider` does). A provider whose work
    runs outside the Python interpreter (a native forward pass) calls
    :func:`leaving_interpreter` on entering it, so the event loop goes on at once.

    Attributes:
        dimensions: length ``d`` of every vector (the vector index is created with it).
        model_name: a stable name, recorded with the schema.
    """

    dimensions: int
    model_name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``.

        Returns:
            ``float32`` array of shape ``(len(texts), dimensions)``, L2-normalised rows.
        """
        ...


NORM_PROBLEM: Final = (
    "an embedding must have a non-zero, finite length (L2 norm) as float32, because Neo4j "
    "stores vectors as float32 and its cosine similarity rejects any other; an all-zero vector, "
    "or values so tiny or huge that their float32 squares underflow to 0 or overflow to inf, "
    "have none"
)
"""Why :func:`norm_problem` rejects a vector (what to do instead depends on the caller)."""
NORM_RULE: Final = (
    f"{NORM_PROBLEM} (normalise the vector, e.g. to length 1, or leave it out to embed the text)"
)
"""Why :func:`norm_problem` rejects a vector, and what to do instead where a thought stored
without one is embedded from its text."""


def norm_problem(vectors: ArrayLike) -> int | None:
    """The first vector Neo4j's ``vector.similarity.cosine`` would reject, if any.

    Neo4j stores an embedding as float32 (``db.create.setNodeVectorProperty``) and computes
    cosine in float32; a stored vector whose float32 L2 norm is 0 or not finite makes every
    cosine against it fail ("not a valid vector"), i.e. every vector search in its namespace.

    Args:
        vectors: one vector ``(d,)`` or a batch ``(n, d)`` of numbers.

    Returns:
        The row index of the first vector whose float32 L2 norm is zero or not finite
        (NaN, inf), or None when every vector is usable. See :data:`NORM_RULE`.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        rows = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        norms = np.linalg.norm(rows, axis=1)
    bad = np.flatnonzero(~(np.isfinite(norms) & (norms > 0)))
    return int(bad[0]) if bad.size else None


def checked_vectors(provider: EmbeddingProvider, texts: Sequence[str]) -> np.ndarray:
    """Call ``provider.embed`` and enforce its contract.

    Returns:
        ``float32`` array ``(len(texts), provider.dimensions)`` of finite values, each row
        with a non-zero, finite L2 norm (:func:`norm_problem`).

    Raises:
        EmbeddingError: the provider raised, or returned a wrong shape, non-finite values or
            a zero-norm vector.
    """
    if not texts:
        return np.zeros((0, provider.dimensions), dtype=np.float32)
    try:
        vectors = np.asarray(provider.embed(list(texts)), dtype=np.float32)
    except Exception as exc:  # a provider is third-party code: wrap whatever it raises
        raise EmbeddingError(f"embedding provider {provider.model_name!r} failed: {exc}") from exc
    expected = (len(texts), provider.dimensions)
    if vectors.shape != expected:
        raise EmbeddingError(
            f"embedding provider {provider.model_name!r} returned shape {vectors.shape}, "
            f"expected {expected}"
        )
    if not np.isfinite(vectors).all():
        raise EmbeddingError(f"embedding provider {provider.model_name!r} returned NaN or inf")
    bad = norm_problem(vectors)
    if bad is not None:
        raise EmbeddingError(
            f"embedding provider {provider.model_name!r} returned an unusable "
            f"vector for text {bad}: {NORM_RULE}"
        )
    return vectors


#: How long :func:`embed_off_loop` waits, at most, for the worker thread it handed a call to
#: to say it leaves the interpreter (seconds). The loop thread then takes the interpreter back
#: as soon as the worker lets it go (a worker running Python keeps it up to the interpreter's
#: switch interval, 5 ms).
HANDOFF_TIMEOUT_SECONDS: Final = 0.002

_HANDOFF: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "engrava_graph_embedding_handoff", default=None
)
_IN_FLIGHT: dict[int, int] = {}  # id(provider) -> calls handed to a worker and not yet done
_IN_FLIGHT_LOCK = threading.Lock()


def leaving_interpreter() -> None:
    """Say, on a provider's worker thread, that the call is about to leave the Python
    interpreter for a while (a native forward pass that releases the GIL, or a wait for a busy
    model), so the event loop that handed the call over may take the interpreter back (see
    :func:`embed_off_loop`). Does nothing outside such a call; a provider that never calls it
    is handed over when its call returns, or after :data:`HANDOFF_TIMEOUT_SECONDS`."""
    event = _HANDOFF.get()
    if event is not None:
        event.set()


async def embed_off_loop(provider: EmbeddingProvider, texts: Sequence[str]) -> np.ndarray:
    """:func:`checked_vectors` on a worker thread: how async code embeds, without blocking.

    A provider call is synchronous and CPU-bound (tens to hundreds of milliseconds per query
    with the default model); made on the event loop it would stall every other coroutine
    (in the REST service, every concurrent request would queue behind it). It runs in the
    loop's default executor (context variables copied, as ``asyncio.to_thread`` does). If the
    awaiting task is cancelled the call still finishes in its thread and the vectors are
    dropped; callers write nothing before the vectors are back.

    The hand-over: a worker thread needs the interpreter lock (GIL) to start the call, and the
    loop thread keeps it while it runs Python, up to the interpreter's switch interval (5 ms),
    so a question's embedding used to start only when the loop next waited for Neo4j, a
    millisecond after it was asked for. So when no other call to the same provider is in
    flight, the loop waits here, releasing the lock, until the worker says it is leaving the
    interpreter (:func:`leaving_interpreter`, which
    :class:`~engrava_graph.embeddings.SentenceTransformerProvider` says before its forward pass
    and before it waits for a busy model), the call returns, or
    :data:`HANDOFF_TIMEOUT_SECONDS` passes; the forward pass then runs beside whatever the loop
    does next. A call beside another one does not wait: it would wait for the model anyway, and
    under load a queued worker could not say anything before the timeout.

    Args:
        provider: the provider to call.
        texts: the texts, in order.

    Returns:
        ``float32`` array ``(len(texts), provider.dimensions)`` of finite values.

    Raises:
        EmbeddingError: as :func:`checked_vectors` (raised in the worker, re-raised here).
    """
    key = id(provider)
    with _IN_FLIGHT_LOCK:
        alone = key not in _IN_FLIGHT
        _IN_FLIGHT[key] = _IN_FLIGHT.get(key, 0) + 1
    handoff = threading.Event()
    call = functools.partial(
        contextvars.copy_context().run, _handed_over, handoff, key, provider, texts
    )
    try:
        future = asyncio.get_running_loop().run_in_executor(None, call)
    except BaseException:
        _done(key)
        raise
    if alone:
        handoff.wait(HANDOFF_TIMEOUT_SECONDS)
    return await future


def _handed_over(
    handoff: threading.Event, key: int, provider: EmbeddingProvider, texts: Sequence[str]
) -> np.ndarray:
    """The worker's side of :func:`embed_off_loop` (runs in a copy of the caller's context)."""
    _HANDOFF.set(handoff)
    try:
        return checked_vectors(provider, texts)
    finally:
        _done(key)
        handoff.set()


def _done(key: int) -> None:
    with _IN_FLIGHT_LOCK:
        left = _IN_FLIGHT.pop(key) - 1
        if left:
            _IN_FLIGHT[key] = left
