"""Provider calls run off the event loop: the loop keeps serving while a provider embeds, the
provider's errors still arrive typed with nothing written, and the default provider runs at
most one call per model replica however many threads call it."""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.model import EmbeddingError
from engrava_graph.retrieval import orchestrator
from tests.factories import thought

DIMENSIONS = 384  # the database's vector index is shared by every test namespace
TICKS = 3
DEADLOCK_GUARD_SECONDS = 30.0  # reached only when the loop is blocked (the failure under test)


def _unit_vector(text: str) -> np.ndarray:
    vector = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(DIMENSIONS)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


class GatedProvider:
    """A pure-Python provider whose ``embed`` does not return until the event loop has run.

    On entry it wakes the ticker (thread-safely), then waits for the ticker to release it.
    The ticker runs on the event loop, so the release comes only if ``embed`` is not holding
    the loop: called on the loop thread, the wait would end by the guard, not by a release.
    """

    dimensions = DIMENSIONS
    model_name = "gated"

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.entered = asyncio.Event()
        self.release = threading.Event()
        self.released: list[bool] = []  # per call: released by the loop (True) or by the guard

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self._loop.call_soon_threadsafe(self.entered.set)
        self.released.append(self.release.wait(timeout=DEADLOCK_GUARD_SECONDS))
        return np.stack([_unit_vector(t) for t in texts])


async def _tick_during_embedding(provider: GatedProvider) -> int:
    """Wait until ``embed`` has started, advance the loop ``TICKS`` times, release ``embed``."""
    await provider.entered.wait()
    ticks = 0
    for _ in range(TICKS):
        await asyncio.sleep(0)
        ticks += 1
    provider.release.set()
    return ticks


OPERATIONS: dict[str, Callable[[Neo4jEngravaCore], Awaitable[Any]]] = {
    "retrieve": lambda s: s.retrieve("What caused the outage and who fixed it?"),
    "search_hybrid": lambda s: s.search_hybrid("green tea"),
    "create_thought": lambda s: s.create_thought(thought("Caroline drinks green tea")),
    "bulk_store": lambda s: s.bulk_store([thought("one cup"), thought("two cups")]),
    "update_thought": lambda s: s.update_thought("seeded", content="Melanie prefers coffee"),
}


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
async def test_the_loop_keeps_ticking_while_the_provider_embeds(make_store, operation):
    provider = GatedProvider(asyncio.get_running_loop())
    store = make_store(embedding_provider=provider)
    await store.create_thought(
        thought("Melanie drinks tea", thought_id="seeded"), embedding=_unit_vector("seed").tolist()
    )
    ticks, _ = await asyncio.gather(_tick_during_embedding(provider), OPERATIONS[operation](store))
    assert ticks == TICKS
    assert provider.released and all(provider.released), "the provider call blocked the loop"


class ProbeProvider:
    """A provider that records, thread-safely, that a call has begun."""

    dimensions = DIMENSIONS
    model_name = "probe"

    def __init__(self) -> None:
        self.entered = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.entered.set()
        return np.stack([_unit_vector(t) for t in texts])


async def test_the_question_is_embedded_while_it_is_encoded(make_store, monkeypatch):
    # The encoding (dateparser on a date phrase: tens of milliseconds) holds the loop: the
    # embedding must already be on its worker thread when it begins, or it waits for it.
    provider = ProbeProvider()
    store = make_store(embedding_provider=provider)
    await store.create_thought(thought("Melanie drinks tea"), embedding=_unit_vector("t").tolist())
    provider.entered.clear()
    encode, began = orchestrator.encode_query, []

    def encode_after_the_embedding_began(*args: Any, **kwargs: Any) -> Any:
        began.append(provider.entered.wait(timeout=DEADLOCK_GUARD_SECONDS))
        return encode(*args, **kwargs)

    monkeypatch.setattr(orchestrator, "encode_query", encode_after_the_embedding_began)
    await store.retrieve("What did Melanie drink last Tuesday?")
    assert began == [True]


class FaultyProvider:
    """A provider that breaks its contract in one of three ways."""

    dimensions = DIMENSIONS
    model_name = "faulty"

    def __init__(self, fault: str) -> None:
        self.fault = fault

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fault == "raises":
            raise RuntimeError("model exploded")
        if self.fault == "wrong shape":
            return np.zeros((len(texts), DIMENSIONS - 1), dtype=np.float32)
        return np.full((len(texts), DIMENSIONS), np.nan, dtype=np.float32)


@pytest.mark.parametrize("fault", ["raises", "wrong shape", "not finite"])
async def test_provider_faults_raised_in_the_worker_arrive_typed_and_write_nothing(
    make_store, fault
):
    store = make_store(embedding_provider=FaultyProvider(fault))
    with pytest.raises(EmbeddingError, match="faulty"):
        await store.bulk_store([thought("one cup"), thought("two cups")])
    with pytest.raises(EmbeddingError, match="faulty"):
        await store.create_thought(thought("three cups"))
    with pytest.raises(EmbeddingError, match="faulty"):
        await store.retrieve("how many cups?")
    assert await store.count_thoughts() == 0


@pytest.mark.parametrize("backend", ["torch", "onnx"])
@pytest.mark.parametrize("workers", [1, 2])
def test_the_provider_runs_at_most_one_call_per_replica(workers: int, backend: str, monkeypatch):
    from sentence_transformers import SentenceTransformer

    from engrava_graph.embeddings.onnx_backend import OnnxSession

    provider = SentenceTransformerProvider(workers=workers, cache_size=0, backend=backend)  # type: ignore[arg-type]
    texts = [f"cup number {i} of green tea" for i in range(8)]
    alone = provider.embed(texts)
    # a replica is a SentenceTransformer (torch), or a tokenizer of its own over the shared
    # session (ONNX): the call's first argument, or its second
    owner, replica_argument = (SentenceTransformer, 0) if backend == "torch" else (OnnxSession, 1)
    encode, guard = owner.encode, threading.Lock()
    inside: dict[str, Any] = {"now": 0, "most": 0, "per_replica": {}}

    def counting_encode(*args: Any, **kwargs: Any) -> Any:
        replica = id(args[replica_argument])
        with guard:
            inside["now"] += 1
            inside["most"] = max(inside["most"], inside["now"])
            busy = inside["per_replica"].get(replica, 0) + 1
            inside["per_replica"][replica] = busy
            assert busy == 1, "two calls on one replica at once"
        try:
            return encode(*args, **kwargs)
        finally:
            with guard:
                inside["now"] -= 1
                inside["per_replica"][replica] -= 1

    monkeypatch.setattr(owner, "encode", counting_encode)
    with ThreadPoolExecutor(max_workers=4) as pool:
        rows = list(pool.map(lambda text: provider.embed([text]), texts))
    assert provider.backend == backend
    assert 1 <= inside["most"] <= workers
    assert len(inside["per_replica"]) <= workers
    np.testing.assert_allclose(np.vstack(rows), alone, atol=1e-5)


def test_a_repeated_query_is_served_from_the_cache(provider: SentenceTransformerProvider):
    text = f"how many cups of green tea? {threading.get_ident()}"
    hits = provider.cache.hits
    first = provider.embed([text])
    second = provider.embed([text])
    assert provider.cache.hits == hits + 1
    np.testing.assert_array_equal(first, second)
    second[0, 0] = 2.0  # the caller's copy, not the cache's
    np.testing.assert_array_equal(provider.embed([text]), first)
