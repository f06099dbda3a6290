"""Single-text embedding calls that wait for a busy model, embedded together in one batch.

A service embeds each question on its own, but under load the questions queue for the model:
with one replica (the REST service's default), eight concurrent requests mean seven callers
waiting while one forward pass runs. A forward pass over several short texts costs much less
than as many passes over one (``benchmarks/bench_embed.py`` reports both), so whichever caller
gets the model next embeds every text queued by then, and each caller takes its own row.

Nobody waits on purpose: a call that finds the model free runs at once, alone, exactly as
without this class (a lone question's vector is the same bytes). A batch is padded to its
longest text, so a vector embedded beside others may differ from the lone one in the last
float32 bits (about 1e-7, the attention mask keeps padding out of the result).

This is the "continuous batching" of inference servers, in threads, without a timer: see
Hugging Face Text Embeddings Inference's dynamic batching, or NVIDIA Triton's dynamic batcher
with a zero queue delay.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Generic, TypeVar

import numpy as np

Model = TypeVar("Model")


class _Waiting:
    """One queued text, and what its batch gave it."""

    __slots__ = ("done", "error", "text", "vector")

    def __init__(self, text: str) -> None:
        self.text = text
        self.done = threading.Event()
        self.vector: np.ndarray | None = None
        self.error: BaseException | None = None


class Coalescer(Generic[Model]):
    """Embeds single texts, each queued call joining the next batch run on a free model.

    Args:
        borrow: a context manager factory lending a model (blocking while none is free); the
            provider's replica pool.
        run: embeds a list of texts on a lent model: ``float32`` ``(len(texts), d)``.
        max_batch: texts per forward pass at most (more queued ones wait for the next).

    Attributes:
        batches: forward passes run, and ``texts`` texts embedded in them, since construction
            (``texts / batches`` is the mean batch size).
    """

    def __init__(
        self,
        borrow: Callable[[], AbstractContextManager[Model]],
        run: Callable[[Model, list[str]], np.ndarray],
        max_batch: int,
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        self._borrow = borrow
        self._run = run
        self._max_batch = max_batch
        self._lock = threading.Lock()
        self._queued: list[_Waiting] = []
        self.batches = 0
        self.texts = 0

    def embed(self, text: str) -> np.ndarray:
        """The vector ``(d,)`` of ``text``, embedded alone when the model is free, else in a
        batch with the texts queued beside it.

        Raises:
            Whatever ``borrow`` or ``run`` raised for the batch holding ``text``.
        """
        waiting = _Waiting(text)
        with self._lock:
            self._queued.append(waiting)
        with self._borrow() as model:
            # Serve the queue until this call's text is done: it is either still queued (and
            # taken here) or in a batch another caller is running now.
            while not waiting.done.is_set():
                with self._lock:
                    batch = self._queued[: self._max_batch]
                    del self._queued[: self._max_batch]
                if not batch:
                    break
                self._serve(model, batch)
        waiting.done.wait()
        if waiting.error is not None:
            raise waiting.error
        assert waiting.vector is not None
        return waiting.vector

    def _serve(self, model: Model, batch: list[_Waiting]) -> None:
        """Embed ``batch`` (each distinct text once) and hand every caller its row or the
        error."""
        texts = list(dict.fromkeys(w.text for w in batch))
        try:
            vectors = self._run(model, texts)
        except BaseException as exc:  # every caller of the batch gets it, none waits forever
            for w in batch:
                w.error = exc
                w.done.set()
            return
        rows = dict(zip(texts, vectors, strict=True))
        with self._lock:
            self.batches += 1
            self.texts += len(texts)
        for w in batch:
            w.vector = rows[w.text]
            w.done.set()
