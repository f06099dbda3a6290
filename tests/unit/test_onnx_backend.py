"""The embedder's ONNX backend gives sentence-transformers' vectors (to < 1e-5), exports the
bundled model once into the cache directory, replaces a broken cached export, tokenises exactly
as sentence-transformers does, and is safe from several threads; unsupported models fall back
to torch. No Neo4j; the cache directory is a temporary ``ENGRAVA_GRAPH_HOME``."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from engrava_graph.embeddings import onnx_backend
from engrava_graph.embeddings.onnx_backend import OnnxSpec, OnnxUnsupportedError
from engrava_graph.embeddings.sentence_transformer import (
    SentenceTransformerProvider,
    bundled_model_path,
)

TOLERANCE = 1e-5
TEXTS = [
    "What did Caroline research?",
    "",
    "  leading and trailing spaces  ",
    "Héllo Wörld, café naïve – ÀÉÎ",
    "日本語のテキストと中文 mixed with English",
    "emoji 🎉🚀 and a URL https://example.org/a?b=1",
    "When did Melanie paint a sunrise? " * 3,
]
LONG = "a sentence that keeps going and going " * 60  # about 420 tokens, truncated at 256


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An empty ``ENGRAVA_GRAPH_HOME`` for this module (the first ONNX provider exports)."""
    home = tmp_path_factory.mktemp("engrava-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ENGRAVA_GRAPH_HOME", str(home))
        yield home


@pytest.fixture(scope="module")
def onnx_provider(home: Path) -> SentenceTransformerProvider:
    provider = SentenceTransformerProvider(cache_size=0, backend="onnx")
    provider.embed(["warm up"])  # exports into `home`
    return provider


@pytest.fixture(scope="module")
def torch_provider() -> SentenceTransformerProvider:
    return SentenceTransformerProvider(cache_size=0, backend="torch")


def _exports(home: Path) -> list[Path]:
    return sorted((home / "onnx").glob("*.onnx"))


def test_auto_chooses_onnx_for_the_bundled_model(home: Path) -> None:
    assert SentenceTransformerProvider(cache_size=0).backend == "onnx"


def test_single_texts_match_torch(onnx_provider, torch_provider) -> None:
    assert onnx_provider.backend == "onnx" and torch_provider.backend == "torch"
    for text in [*TEXTS, LONG]:
        got = onnx_provider.embed([text])
        assert got.shape == (1, 384) and got.dtype == np.float32
        assert np.abs(got - torch_provider.embed([text])).max() < TOLERANCE, text


@pytest.mark.parametrize("batch_size", [64, 3])
def test_a_padded_batch_of_mixed_lengths_matches_torch(torch_provider, home, batch_size) -> None:
    provider = SentenceTransformerProvider(cache_size=0, batch_size=batch_size, backend="onnx")
    texts = [*TEXTS, LONG, "short"]
    got = provider.embed(texts)
    assert got.shape == (len(texts), 384)
    assert np.abs(got - torch_provider.embed(texts)).max() < TOLERANCE
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


def test_a_long_text_is_truncated_at_max_seq_length(onnx_provider) -> None:
    spec = OnnxSpec.from_dir(bundled_model_path())
    assert spec.max_seq_length == 256
    assert len(spec.tokenizer().encode(LONG).ids) == 256
    longer = onnx_provider.embed([LONG + " with a different ending"])
    assert np.abs(onnx_provider.embed([LONG]) - longer).max() < TOLERANCE


def test_tokens_match_sentence_transformers(torch_provider) -> None:
    model = torch_provider._load()
    texts = [*TEXTS, LONG, "\u200b zero width", "ﬁ ligature Ⅻ ①", "tab\tand\nnewline", "😀" * 300]
    reference = model.preprocess(texts)
    encodings = OnnxSpec.from_dir(bundled_model_path()).tokenizer().encode_batch(texts)
    for row, encoding in enumerate(encodings):
        size = int(reference["attention_mask"][row].sum())
        assert encoding.ids == reference["input_ids"][row, :size].tolist(), texts[row]
        assert encoding.type_ids == reference["token_type_ids"][row, :size].tolist()


def test_the_cached_export_is_reused(onnx_provider, home, monkeypatch) -> None:
    (path,) = _exports(home)
    before = path.stat()

    def no_export(*args: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_backend, "_export", no_export)
    provider = SentenceTransformerProvider(cache_size=0, backend="onnx")
    assert np.abs(provider.embed(["reused"]) - onnx_provider.embed(["reused"])).max() == 0
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert _exports(home) == [path] and not list((home / "onnx").glob(".*"))


def test_a_corrupted_cached_export_is_replaced(onnx_provider, torch_provider, home, caplog):
    (path,) = _exports(home)
    size = path.stat().st_size
    path.write_bytes(b"not an onnx model" * 100)
    with caplog.at_level(logging.WARNING):
        provider = SentenceTransformerProvider(cache_size=0, backend="onnx")
        got = provider.embed(["after the repair"])
    assert "re-exporting" in caplog.text
    assert provider.backend == "onnx" and path.stat().st_size == size
    assert np.abs(got - torch_provider.embed(["after the repair"])).max() < TOLERANCE


def test_an_export_that_no_longer_embeds_like_torch_is_exported_again(
    onnx_provider, home, monkeypatch
) -> None:
    import onnx

    (path,) = _exports(home)
    good = path.read_bytes()
    proto = onnx.load_from_string(good)
    onnx.helper.set_model_props(proto, {"engrava.probes": json.dumps([[0.0] * 384] * 2)})
    path.write_bytes(proto.SerializeToString())
    exported: list[OnnxSpec] = []

    def export(spec: OnnxSpec, load: object) -> bytes:
        exported.append(spec)
        return good

    monkeypatch.setattr(onnx_backend, "_export", export)
    provider = SentenceTransformerProvider(cache_size=0, backend="onnx")
    provider.embed(["probe"])
    assert len(exported) == 1 and path.read_bytes() == good


def test_an_unwritable_cache_still_runs_on_onnx(onnx_provider, home, monkeypatch, caplog):
    (path,) = _exports(home)
    good = path.read_bytes()
    path.unlink()

    def read_only(*args: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(onnx_backend, "_export", lambda spec, load: good)
    monkeypatch.setattr(onnx_backend, "_write_atomically", read_only)
    with caplog.at_level(logging.WARNING):
        provider = SentenceTransformerProvider(cache_size=0, backend="onnx")
        vectors = provider.embed(["no cache"])
    assert "cannot cache" in caplog.text and provider.backend == "onnx"
    assert np.abs(vectors - onnx_provider.embed(["no cache"])).max() == 0
    path.write_bytes(good)


def test_several_threads_embedding_at_once_get_the_same_vectors(home, onnx_provider) -> None:
    provider = SentenceTransformerProvider(cache_size=0, workers=3, backend="onnx")
    texts = [*TEXTS, LONG]
    expected = onnx_provider.embed(texts)
    results: list[tuple[np.ndarray, list[int]]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def work(worker: int) -> None:
        try:
            start.wait()
            for round_ in range(4):
                rows = list(range(len(texts)))[(worker + round_) % 3 :: 2]
                results.append((provider.embed([texts[row] for row in rows]), rows))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 24
    for vectors, rows in results:
        assert np.abs(vectors - expected[rows]).max() < TOLERANCE
    assert 1 <= provider._loaded <= 3


def test_torch_backend_still_works(torch_provider) -> None:
    vectors = torch_provider.embed(["a first thought", "a second one"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert torch_provider.backend == "torch"


def _model_copy(tmp_path: Path, pooling: dict[str, object]) -> Path:
    """The bundled model's files linked into ``tmp_path``, with its pooling config replaced."""
    source = Path(bundled_model_path())
    for file in source.rglob("*"):
        if file.is_file():
            target = tmp_path / file.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(file, target)
    config = tmp_path / "1_Pooling" / "config.json"
    config.unlink()
    config.write_text(
        json.dumps({**json.loads((source / "1_Pooling/config.json").read_text()), **pooling})
    )
    return tmp_path


def test_a_tokenizer_truncating_on_the_left_is_not_for_onnx(tmp_path) -> None:
    model = _model_copy(tmp_path, {})
    config = model / "tokenizer_config.json"
    settings = {**json.loads(config.read_text()), "truncation_side": "left"}
    config.unlink()
    config.write_text(json.dumps(settings))
    with pytest.raises(OnnxUnsupportedError, match="truncates on the left"):
        OnnxSpec.from_dir(model)


def test_a_model_with_other_pooling_falls_back_to_torch(tmp_path, caplog) -> None:
    model = _model_copy(
        tmp_path, {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}
    )
    with caplog.at_level(logging.INFO):
        provider = SentenceTransformerProvider(str(model), cache_size=0)
    assert provider.backend == "torch" and provider.dimensions == 384
    assert "on torch" in caplog.text and "pooling_mode_cls_token" in caplog.text
    with pytest.raises(ValueError, match="cannot run"):
        SentenceTransformerProvider(str(model), backend="onnx")


def test_unsupported_model_directories_are_named(tmp_path) -> None:
    with pytest.raises(OnnxUnsupportedError, match="modules.json"):
        OnnxSpec.from_dir(tmp_path)
    (tmp_path / "modules.json").write_text(
        json.dumps([{"type": "sentence_transformers.models.Transformer", "path": ""}])
    )
    with pytest.raises(OnnxUnsupportedError, match="pipeline is Transformer,"):
        OnnxSpec.from_dir(tmp_path)
    (tmp_path / "modules.json").write_text(json.dumps(["Transformer", "Pooling"]))
    with pytest.raises(OnnxUnsupportedError, match="not a list of modules"):
        OnnxSpec.from_dir(tmp_path)
    (tmp_path / "modules.json").write_text(
        json.dumps([{"type": "x.Transformer"}, {"type": "x.Pooling", "path": "pool"}])
    )
    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "config.json").write_text("[]")
    with pytest.raises(OnnxUnsupportedError, match="not a JSON object"):
        OnnxSpec.from_dir(tmp_path)
    with pytest.raises(ValueError, match="backend must be one of"):
        SentenceTransformerProvider(backend="gpu")  # type: ignore[arg-type]
