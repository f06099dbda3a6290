"""The service's garbage-collector tuning (``engrava-graph serve``), in a child process: it
freezes the heap and changes process-wide thresholds, which the test process must keep."""

from __future__ import annotations

import subprocess
import sys

import pytest

from api.settings import ApiSettings
from engrava_graph.cli.serve import FULL_COLLECTION_EVERY

PROBE = """
import gc
from engrava_graph.cli.serve import tune_gc_for_serving
tune_gc_for_serving()
print(gc.get_threshold(), gc.get_freeze_count() > 0)
"""


def test_tuning_freezes_the_heap_and_spaces_full_collections() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split("\n")[0] == f"(700, 10, {FULL_COLLECTION_EVERY}) True"


def test_tuning_is_on_by_default_and_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAVA_GC_TUNING", raising=False)
    assert ApiSettings(_env_file=None).gc_tuning is True  # type: ignore[call-arg]
    monkeypatch.setenv("ENGRAVA_GC_TUNING", "false")
    assert ApiSettings(_env_file=None).gc_tuning is False  # type: ignore[call-arg]
