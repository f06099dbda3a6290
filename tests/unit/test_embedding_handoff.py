"""The hand-over of a provider call to its worker thread (``embed_off_loop``): the event loop
waits until the worker says it leaves the interpreter, no longer, and at most
``HANDOFF_TIMEOUT_S`` when the worker never says so."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import numpy as np

from engrava_graph.embeddings.base import HANDOFF_TIMEOUT_S, embed_off_loop, leaving_interpreter

DIMENSIONS = 4


class NativeLikeProvider:
    """Says it leaves the interpreter, then waits (as a forward pass that released the GIL
    would run) until the test lets it finish."""

    dimensions = DIMENSIONS
    model_name = "native-like"

    def __init__(self, *, says_it: bool) -> None:
        self.says_it = says_it
        self.started = threading.Event()
        self.finish = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.started.set()
        if self.says_it:
            leaving_interpreter()
        self.finish.wait(timeout=10)
        return np.ones((len(texts), DIMENSIONS), dtype=np.float32)


async def _handed_over(provider: NativeLikeProvider) -> tuple[bool, float]:
    """Start a call; return whether the worker had started when the loop got control back,
    and how long the loop was held (seconds)."""
    began = time.perf_counter()
    task = asyncio.ensure_future(embed_off_loop(provider, ["a question"]))
    await asyncio.sleep(0)  # the task submits the call and holds the loop for the hand-over
    held = time.perf_counter() - began
    started = provider.started.is_set()
    provider.finish.set()
    vectors = await task
    assert vectors.shape == (1, DIMENSIONS)
    return started, held


async def test_the_loop_goes_on_once_the_worker_leaves_the_interpreter():
    started, held = await _handed_over(NativeLikeProvider(says_it=True))
    assert started  # the worker ran before the loop took the interpreter back
    assert held < 1.0  # and the loop did not wait for the call to end (10 s)


async def test_a_worker_that_never_says_so_holds_the_loop_for_the_timeout_at_most():
    started, held = await _handed_over(NativeLikeProvider(says_it=False))
    assert started
    assert held < HANDOFF_TIMEOUT_S + 0.5


def test_outside_a_call_leaving_the_interpreter_does_nothing():
    leaving_interpreter()  # no hand-over in progress: no error, no effect
