"""Single-text calls that queue for a busy model are embedded together (pure logic: a stand-in
model that turns a text into its length, behind a one-slot gate)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import pytest

from engrava_graph.embeddings.coalesce import Coalescer


class _Model:
    """One model behind a lock; records every batch it ran. ``hold`` keeps the first batch
    running until released, so that the other callers queue."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.gate = threading.Lock()
        self.batches: list[list[str]] = []
        self.hold = threading.Event()
        self.started = threading.Event()
        self.fail_on = fail_on

    @contextmanager
    def borrow(self) -> Iterator[_Model]:
        with self.gate:
            yield self

    def run(self, model: _Model, texts: list[str]) -> np.ndarray:
        self.batches.append(texts)
        self.started.set()
        self.hold.wait(5)
        if self.fail_on in texts:
            raise RuntimeError(f"cannot embed {self.fail_on!r}")
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)


def _queue_behind_first(model: _Model, texts: list[str], max_batch: int = 64) -> list[object]:
    """Embed ``texts[0]`` first and hold it; the rest queue meanwhile; then release."""
    coalescer = Coalescer(model.borrow, model.run, max_batch=max_batch)
    with ThreadPoolExecutor(len(texts)) as pool:
        first = pool.submit(coalescer.embed, texts[0])
        assert model.started.wait(5)
        rest = [pool.submit(coalescer.embed, t) for t in texts[1:]]
        while len(coalescer._queued) < len(texts) - 1:  # every other caller is queued
            threading.Event().wait(0.001)
        model.hold.set()
        futures = [first, *rest]
        return [f.exception() or f.result() for f in futures]


def test_a_call_on_a_free_model_runs_alone() -> None:
    model = _Model()
    model.hold.set()
    coalescer = Coalescer(model.borrow, model.run, max_batch=64)
    assert coalescer.embed("abc").tolist() == [3.0, 1.0]
    assert model.batches == [["abc"]] and (coalescer.batches, coalescer.texts) == (1, 1)


def test_callers_queued_behind_a_busy_model_share_one_batch() -> None:
    model = _Model()
    texts = ["a", "bb", "ccc", "dddd", "bb"]
    results = _queue_behind_first(model, texts)
    assert [r.tolist() for r in results] == [[float(len(t)), 1.0] for t in texts]  # type: ignore[attr-defined]
    assert model.batches[0] == ["a"]
    assert sorted(model.batches[1]) == ["bb", "ccc", "dddd"]  # the repeated text embedded once
    assert len(model.batches) == 2


def test_an_error_reaches_every_caller_of_its_batch_only() -> None:
    model = _Model(fail_on="ccc")
    results = _queue_behind_first(model, ["a", "bb", "ccc"])
    assert results[0].tolist() == [1.0, 1.0]  # type: ignore[attr-defined]
    assert all(isinstance(r, RuntimeError) and "ccc" in str(r) for r in results[1:])


def test_batches_hold_at_most_max_batch_texts() -> None:
    model = _Model()
    texts = ["a", "bb", "ccc", "dddd", "eeeee", "ffffff"]
    results = _queue_behind_first(model, texts, max_batch=2)
    assert [r.tolist()[0] for r in results] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]  # type: ignore[attr-defined]
    assert [len(b) for b in model.batches] == [1, 2, 2, 1]


def test_max_batch_must_be_positive() -> None:
    model = _Model()
    with pytest.raises(ValueError, match="max_batch"):
        Coalescer(model.borrow, model.run, max_batch=0)
