"""The embedder's ONNX Runtime backend: the same sentence-transformers model, about 2.5x faster.

A local sentence-transformers model whose pipeline is Transformer + mean Pooling (+ Normalize),
such as the bundled all-MiniLM-L6-v2, is exported once to ONNX from its own weights (offline,
with torch, at first use) into ``<cache>/onnx/<key>.onnx``, where ``<cache>`` is
``$ENGRAVA_GRAPH_HOME``, else ``${XDG_CACHE_HOME:-~/.cache}/engrava-graph``. ``<key>`` hashes the
model's files, the torch version, the ONNX opset and this module's export format, so a changed
model or exporter writes a new file. The file is written to a temporary name and renamed into
place, so a concurrent reader (thread or process) sees a whole file or none. It records two probe
texts' vectors computed by sentence-transformers at export; a cached file that does not load, or
whose probe vectors differ, is exported again. When the directory cannot be written, the export
is used from memory (and redone by the next process), with a warning.

Embedding runs the transformer in onnxruntime, tokenises with the model's ``tokenizer.json``
(the same fast tokenizer sentence-transformers uses, truncated at the model's
``max_seq_length``), and mean-pools and L2-normalises in numpy: the vectors agree with
sentence-transformers' to about 1e-7.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from engrava_graph.embeddings.base import leaving_interpreter
from engrava_graph.home import cache_dir

log = logging.getLogger(__name__)

EXPORT_OPSET: Final = 17
"""The ONNX opset the transformer is exported with (part of the cache key)."""

_EXPORT_FORMAT: Final = 1  # bump when the exported graph or its metadata change
_PROBES: Final = (  # embedded as one padded batch when a file is exported and when it is loaded
    "Engrava probe: does the exported model still embed like the original one?",
    "a short one",
)
_PROBE_TOLERANCE: Final = 1e-4  # max abs difference between the ONNX and torch probe vectors
_INPUT_NAMES: Final = ("input_ids", "attention_mask", "token_type_ids")
_OUTPUT_NAME: Final = "last_hidden_state"
_PROBE_KEY: Final = "engrava.probes"  # metadata: the probes' sentence-transformers vectors
_SKIPPED_DIRS: Final = frozenset({"onnx", "openvino"})  # other exports inside a model directory


class OnnxUnsupportedError(Exception):
    """This model cannot run on the ONNX backend; the message says why (for the log line)."""


@dataclass(frozen=True)
class OnnxSpec:
    """What the ONNX backend needs to know about one sentence-transformers model directory.

    Attributes:
        model_dir: the sentence-transformers model directory.
        transformer_dir: its Transformer module's directory (weights, ``tokenizer.json``).
        max_seq_length: tokens kept per text (longer texts are truncated), e.g. 256.
        dimensions: length of the pooled vector, e.g. 384.
    """

    model_dir: Path
    transformer_dir: Path
    max_seq_length: int
    dimensions: int

    @classmethod
    def from_dir(cls, model_dir: str | Path) -> OnnxSpec:
        """Read a model directory's ``modules.json`` and configs.

        Raises:
            OnnxUnsupportedError: the directory is not a sentence-transformers model whose
                pipeline is Transformer + mean Pooling (+ Normalize) with a fast tokenizer
                (``tokenizer.json``, truncating on the right), a ``max_seq_length``, no
                lower-casing and no default prompt.
        """
        root = Path(model_dir)
        modules = _json(root / "modules.json")
        if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
            raise OnnxUnsupportedError(f"{root / 'modules.json'} is not a list of modules")
        kinds = [str(module.get("type", "")).rsplit(".", 1)[-1] for module in modules]
        if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
            raise OnnxUnsupportedError(
                f"its pipeline is {' + '.join(kinds) or 'empty'}, "
                "not Transformer + Pooling (+ Normalize)"
            )
        transformer_dir = root / modules[0].get("path", "")
        pooling = _json_object(root / modules[1].get("path", "") / "config.json")
        modes = sorted(
            key for key, value in pooling.items() if key.startswith("pooling_mode_") and value
        )
        if modes != ["pooling_mode_mean_tokens"]:
            raise OnnxUnsupportedError(f"its pooling is {modes or 'none'}, not mean tokens only")
        settings = _json_object(transformer_dir / "sentence_bert_config.json")
        max_seq_length = settings.get("max_seq_length")
        if not isinstance(max_seq_length, int) or max_seq_length < 1:
            raise OnnxUnsupportedError("sentence_bert_config.json sets no max_seq_length")
        if settings.get("do_lower_case"):
            raise OnnxUnsupportedError("it lower-cases texts before tokenising (do_lower_case)")
        st_config = root / "config_sentence_transformers.json"
        if st_config.is_file() and _json_object(st_config).get("default_prompt_name"):
            raise OnnxUnsupportedError("it prepends a default prompt")
        if not (transformer_dir / "tokenizer.json").is_file():
            raise OnnxUnsupportedError("it has no fast tokenizer (tokenizer.json)")
        tokenizer_config = transformer_dir / "tokenizer_config.json"
        if (
            tokenizer_config.is_file()
            and _json_object(tokenizer_config).get("truncation_side", "right") != "right"
        ):
            raise OnnxUnsupportedError("its tokenizer truncates on the left")
        dimensions = pooling.get("word_embedding_dimension")
        if not isinstance(dimensions, int) or dimensions < 1:
            raise OnnxUnsupportedError("its pooling config sets no word_embedding_dimension")
        return cls(root, transformer_dir, max_seq_length, dimensions)

    def tokenizer(self) -> Any:
        """A new ``tokenizers.Tokenizer`` from ``tokenizer.json``: special tokens added,
        truncated at :attr:`max_seq_length` (longest first, on the right), not padded."""
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.transformer_dir / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.max_seq_length)
        return tokenizer

    def cache_path(self) -> Path:
        """``<cache>/onnx/<key>.onnx`` (see the module docstring for the key)."""
        key = hashlib.sha256(
            json.dumps(
                {
                    "model": _tree_digest(self.model_dir),
                    "torch": importlib.metadata.version("torch"),
                    "opset": EXPORT_OPSET,
                    "format": _EXPORT_FORMAT,
                },
                sort_keys=True,
            ).encode()
        ).hexdigest()[:24]
        return cache_dir(os.environ) / "onnx" / f"{key}.onnx"


class OnnxSession:
    """One exported model loaded in onnxruntime; :meth:`encode` is safe from several threads
    at once (each with its own tokenizer). Build it with :meth:`load`.

    Args:
        spec: the model.
        session: an ``onnxruntime.InferenceSession`` of its export.
    """

    def __init__(self, spec: OnnxSpec, session: Any) -> None:
        self.spec = spec
        self._session = session
        self._input_names = [i.name for i in session.get_inputs()]

    @classmethod
    def load(
        cls, spec: OnnxSpec, threads: int | None, load_torch_model: Callable[[], Any]
    ) -> OnnxSession:
        """The cached export of ``spec``'s model, exported first if missing or broken.

        Args:
            spec: the model.
            threads: onnxruntime intra-op threads per call (None: its default, every core).
            load_torch_model: loads the sentence-transformers model on torch; called only to
                export, the model is dropped afterwards.

        Raises:
            OnnxUnsupportedError: the export failed or does not reproduce sentence-transformers'
                probe vectors (the cause is chained).
        """
        path = spec.cache_path()
        try:
            return cls._open(spec, path, threads)
        except Exception as exc:  # missing, truncated, corrupted or stale: export it again
            if path.exists():
                log.warning("re-exporting the ONNX embedder model %s: %s", path, exc)
        data = _export(spec, load_torch_model)
        try:
            _write_atomically(path, data)
        except OSError as exc:
            log.warning("cannot cache the ONNX embedder model (exported again next time): %s", exc)
            return cls._open(spec, data, threads)
        try:
            return cls._open(spec, path, threads)
        except Exception as exc:
            raise OnnxUnsupportedError(f"its fresh ONNX export fails: {exc}") from exc

    @classmethod
    def _open(cls, spec: OnnxSpec, source: Path | bytes, threads: int | None) -> OnnxSession:
        """Load an export (a file or its bytes) and check it reproduces its probe vectors."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        model = source if isinstance(source, bytes) else str(source)
        session = cls(
            spec, ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        )
        metadata = session._session.get_modelmeta().custom_metadata_map
        expected = np.asarray(json.loads(metadata[_PROBE_KEY]), dtype=np.float32)
        got = session.encode(spec.tokenizer(), _PROBES, len(_PROBES))
        difference = float(np.abs(got - expected).max()) if got.shape == expected.shape else np.inf
        if not difference <= _PROBE_TOLERANCE:
            raise OnnxUnsupportedError(
                f"its probe vectors differ from sentence-transformers' by {difference:.2g}"
            )
        return session

    def encode(self, tokenizer: Any, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Embed ``texts`` into L2-normalised ``float32`` ``(len(texts), dimensions)``.

        Texts are sorted by token count and run ``batch_size`` at a time, each batch padded to
        its longest text (as sentence-transformers batches). ``tokenizer`` comes from
        :meth:`OnnxSpec.tokenizer`; a caller keeps one per thread.
        """
        encodings = tokenizer.encode_batch(list(texts))
        vectors = np.empty((len(encodings), self.spec.dimensions), dtype=np.float32)
        order = np.argsort([-len(encoding.ids) for encoding in encodings], kind="stable")
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            width = max(len(encodings[row].ids) for row in rows)
            feeds = {name: np.zeros((len(rows), width), dtype=np.int64) for name in _INPUT_NAMES}
            for i, row in enumerate(rows):
                encoding = encodings[row]
                size = len(encoding.ids)
                feeds["input_ids"][i, :size] = encoding.ids
                feeds["attention_mask"][i, :size] = encoding.attention_mask
                feeds["token_type_ids"][i, :size] = encoding.type_ids
            leaving_interpreter()  # onnxruntime releases the GIL for the forward pass
            (hidden,) = self._session.run(
                [_OUTPUT_NAME], {name: feeds[name] for name in self._input_names}
            )
            mask = feeds["attention_mask"][..., np.newaxis].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            vectors[rows] = pooled / np.maximum(norms, 1e-12)
        return vectors


def _export(spec: OnnxSpec, load_torch_model: Callable[[], Any]) -> bytes:
    """The model's transformer exported to ONNX, with its probe vectors: the file's bytes.

    Raises:
        OnnxUnsupportedError: the loaded model disagrees with ``spec``, the export fails, or
            the exported graph does not reproduce sentence-transformers' probe vectors.
    """
    import onnx

    model = load_torch_model()
    loaded = (model.max_seq_length, sentence_transformer_dimension(model))
    if loaded != (spec.max_seq_length, spec.dimensions):
        raise OnnxUnsupportedError(
            f"the loaded model has max_seq_length, dimensions {loaded}, its files say "
            f"{(spec.max_seq_length, spec.dimensions)}"
        )
    with warnings.catch_warnings():  # the tracer's expected notes on constant branches
        warnings.simplefilter("ignore")
        data = _exported(model, spec)
    probes = model.encode(
        list(_PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    proto = onnx.load_from_string(data)
    onnx.helper.set_model_props(proto, {_PROBE_KEY: json.dumps(probes.tolist())})
    data = proto.SerializeToString()
    OnnxSession._open(spec, data, threads=1)  # raises when it does not embed like torch
    log.info("exported the ONNX embedder model of %s", spec.model_dir)
    return data


def _exported(model: Any, spec: OnnxSpec) -> bytes:
    """The ONNX graph of ``model``'s transformer: token inputs -> ``last_hidden_state``.

    Raises:
        OnnxUnsupportedError: ``torch.onnx.export`` failed.
    """
    import torch

    transformer = model[0].auto_model.eval()
    names = [n for n in _INPUT_NAMES if n in model[0].tokenizer.model_input_names]
    encoding = spec.tokenizer().encode(_PROBES[0])
    sample = {
        "input_ids": encoding.ids,
        "attention_mask": encoding.attention_mask,
        "token_type_ids": encoding.type_ids,
    }

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.transformer(**dict(zip(names, inputs, strict=True))).last_hidden_state

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "model.onnx"
        try:
            with torch.no_grad():
                torch.onnx.export(
                    LastHiddenState(),
                    tuple(torch.tensor([sample[name]], dtype=torch.int64) for name in names),
                    target,
                    input_names=names,
                    output_names=[_OUTPUT_NAME],
                    dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, _OUTPUT_NAME]},
                    opset_version=EXPORT_OPSET,
                    dynamo=False,
                )
        except Exception as exc:
            raise OnnxUnsupportedError(f"torch.onnx.export failed: {exc}") from exc
        return target.read_bytes()


def sentence_transformer_dimension(model: Any) -> int:
    """The vector length of a loaded ``SentenceTransformer`` (any supported version)."""
    dimension = getattr(model, "get_embedding_dimension", None)  # sentence-transformers >= 6
    return int((dimension or model.get_sentence_embedding_dimension)())


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _json(path: Path) -> Any:
    """The JSON document in ``path``; OnnxUnsupportedError when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OnnxUnsupportedError(f"cannot read {path}: {exc}") from exc


def _json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; OnnxUnsupportedError when it is not one."""
    document = _json(path)
    if not isinstance(document, dict):
        raise OnnxUnsupportedError(f"{path} is not a JSON object")
    return document


_DIGESTS_LOCK = threading.Lock()


def _tree_digest(root: Path) -> str:
    """SHA-256 of every file's relative path and content under ``root`` (hidden entries and
    ``onnx``/``openvino`` export directories left out); remembered per process while the
    files' sizes and modification times stay the same."""
    files = sorted(
        path
        for path in root.rglob("*")
        if path.is_file()
        and not any(
            part.startswith(".") or part in _SKIPPED_DIRS for part in path.relative_to(root).parts
        )
    )
    stamp = tuple((str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    with _DIGESTS_LOCK:
        return _stamped_digest(root, stamp)


@functools.lru_cache(maxsize=16)
def _stamped_digest(root: Path, stamp: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for relative, _size, _mtime in stamp:
        digest.update(relative.encode() + b"\0")
        with open(root / relative, "rb") as file:
            digest.update(hashlib.file_digest(file, "sha256").digest())
    return digest.hexdigest()
