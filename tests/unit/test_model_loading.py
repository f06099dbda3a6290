"""The bundled model loads on torch without its "Loading weights" progress bar on stderr, leaves
the progress-bar setting as it found it, and still raises when a model cannot be loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from transformers.utils import logging as transformers_logging

from engrava_graph.embeddings import SentenceTransformerProvider


def test_loading_the_model_prints_no_progress_bar(capfd: pytest.CaptureFixture[str]) -> None:
    transformers_logging.enable_progress_bar()
    vectors = SentenceTransformerProvider(cache_size=0, backend="torch").embed(["a first thought"])
    assert vectors.shape == (1, 384)
    assert "Loading weights" not in capfd.readouterr().err
    assert transformers_logging.is_progress_bar_enabled()  # restored for the caller's own bars


def test_a_model_that_cannot_load_still_raises(tmp_path: Path) -> None:
    transformers_logging.enable_progress_bar()
    with pytest.raises(Exception, match="no-model"):
        SentenceTransformerProvider(str(tmp_path / "no-model"))
    assert transformers_logging.is_progress_bar_enabled()
