"""The hand-over of a provider call to its worker thread (``embed_off_loop``): the event loop
waits until the worker says it leaves the interpreter and no longer, at most
``HANDOFF_TIMEOUT_SECONDS`` when the worker never says so, and not at all beside another call
to the same provider."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from engrava_graph.embeddings import base
from engrava_graph.embeddings.base import embed_off_loop, leaving_interpreter
from engrava_graph.model import EmbeddingError

DIMENSIONS = 4


class NativeLikeProvider:
    """Says it leaves the interpreter (unless told not to), then waits, as a forward pass that
    released the GIL would run, until the test lets it finish."""

    dimensions = DIMENSIONS
    model_name = "native-like"

    def __init__(self, *, says_it: bool = True) -> None:
        self.says_it = says_it
        self.started = threading.Event()
        self.finish = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.started.set()
        if self.says_it:
            leaving_interpreter()
        self.finish.wait(timeout=10)
        return np.ones((len(texts), DIMENSIONS), dtype=np.float32)


async def _start(provider: NativeLikeProvider) -> tuple[asyncio.Future[np.ndarray], float]:
    """Start a call; return it and how long it held the loop before the loop went on (s)."""
    began = time.perf_counter()
    task = asyncio.ensure_future(embed_off_loop(provider, ["a question"]))
    await asyncio.sleep(0)  # the task submits the call and holds the loop for the hand-over
    return task, time.perf_counter() - began


async def test_the_loop_goes_on_as_soon_as_the_worker_leaves_the_interpreter(monkeypatch):
    monkeypatch.setattr(base, "HANDOFF_TIMEOUT_SECONDS", 5.0)
    provider = NativeLikeProvider()
    task, held = await _start(provider)
    assert provider.started.is_set()  # the worker ran before the loop went on
    assert held < 1.0  # on the worker's word, not after the 5 s timeout
    provider.finish.set()
    assert (await task).shape == (1, DIMENSIONS)


async def test_a_worker_that_never_says_so_holds_the_loop_for_the_timeout(monkeypatch):
    monkeypatch.setattr(base, "HANDOFF_TIMEOUT_SECONDS", 0.05)
    provider = NativeLikeProvider(says_it=False)
    task, held = await _start(provider)
    assert 0.05 <= held < 1.0
    provider.finish.set()
    await task


async def test_a_call_beside_another_to_the_same_provider_does_not_wait(monkeypatch):
    monkeypatch.setattr(base, "HANDOFF_TIMEOUT_SECONDS", 0.01)
    provider = NativeLikeProvider(says_it=False)
    first = asyncio.ensure_future(embed_off_loop(provider, ["one"]))
    await asyncio.sleep(0.05)  # the first call is in flight, its hand-over timed out
    monkeypatch.setattr(base, "HANDOFF_TIMEOUT_SECONDS", 5.0)  # would hold a lone call 5 s
    second, held = await _start(provider)
    assert held < 1.0
    provider.finish.set()
    await asyncio.gather(first, second)
    assert not base._IN_FLIGHT  # every call counted out


async def test_a_failing_call_is_counted_out():
    class Failing:
        dimensions = DIMENSIONS
        model_name = "failing"

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            raise RuntimeError("model broke")

    with pytest.raises(EmbeddingError, match="model broke"):
        await embed_off_loop(Failing(), ["a question"])
    assert not base._IN_FLIGHT


def test_outside_a_call_leaving_the_interpreter_does_nothing():
    leaving_interpreter()  # no hand-over in progress: no error, no effect
