"""Test layout: ``tests/unit`` is pure logic (no database); everything under
``tests/integration`` runs on a real Neo4j (marked ``integration`` here)."""

from __future__ import annotations

from pathlib import Path

import pytest

_INTEGRATION = Path(__file__).parent / "integration"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _INTEGRATION in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)
