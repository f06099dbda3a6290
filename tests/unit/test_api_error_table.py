"""api/errors.py maps every library error class to a status explicitly (one table)."""

from __future__ import annotations

import importlib
import pkgutil

import engrava_graph
from api.errors import ERROR_STATUS, status_for
from engrava_graph.model.errors import ApiError, EngravaGraphError, ThoughtNotFoundError


def _all_subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _all_subclasses(sub)
    return found


def test_every_library_error_has_an_entry() -> None:
    for module in pkgutil.walk_packages(engrava_graph.__path__, "engrava_graph."):
        importlib.import_module(module.name)
    ours = {c for c in _all_subclasses(EngravaGraphError) if c.__module__.startswith("engrava_graph")
            and not issubclass(c, ApiError)}  # the Python client's errors about its HTTP calls
    missing = sorted(c.__qualname__ for c in ours - set(ERROR_STATUS))
    assert not missing, f"add these errors to api.errors.ERROR_STATUS: {missing}"


def test_statuses_and_codes_are_sane() -> None:
    codes = [code for _, code in ERROR_STATUS.values()]
    assert len(codes) == len(set(codes))
    assert all(400 <= status < 600 for status, _ in ERROR_STATUS.values())
    assert status_for(ThoughtNotFoundError("x")) == (404, "thought_not_found")
