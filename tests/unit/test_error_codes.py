"""engrava_graph/model/error_codes.py: one status and code per library error class, and the Python
client reads the table back (code -> class -> the same code)."""

from __future__ import annotations

import importlib
import pkgutil

import httpx
import pytest

import engrava_graph
from engrava_graph.client._errors import ERROR_CLASSES, error_from_response
from engrava_graph.model.error_codes import ERROR_CODES, INVALID_REQUEST, ErrorCode, error_code
from engrava_graph.model.errors import (
    ApiError,
    EngravaGraphError,
    ThoughtNotFoundError,
    ValidationFailedError,
)


def _all_subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _all_subclasses(sub)
    return found


def test_every_library_error_has_an_entry() -> None:
    for module in pkgutil.walk_packages(engrava_graph.__path__, "engrava_graph."):
        importlib.import_module(module.name)
    ours = {
        c
        for c in _all_subclasses(EngravaGraphError)
        if c.__module__.startswith("engrava_graph") and not issubclass(c, ApiError)
    }  # the Python client's errors about its HTTP calls
    missing = sorted(c.__qualname__ for c in ours - set(ERROR_CODES))
    assert not missing, (
        f"add these errors to engrava_graph.model.error_codes.ERROR_CODES: {missing}"
    )


def test_statuses_and_codes_are_sane() -> None:
    codes = [code for _, code in ERROR_CODES.values()] + [INVALID_REQUEST.code]
    assert len(codes) == len(set(codes))
    assert all(400 <= status < 600 for status, _ in ERROR_CODES.values())
    assert error_code(ThoughtNotFoundError("x")) == ErrorCode(404, "thought_not_found")


def test_an_unlisted_class_takes_its_nearest_ancestors_entry() -> None:
    class Unlisted(ThoughtNotFoundError):
        pass

    assert error_code(Unlisted("x")) == ERROR_CODES[ThoughtNotFoundError]


@pytest.mark.parametrize(
    ("cls", "entry"), list(ERROR_CODES.items()), ids=[cls.__name__ for cls in ERROR_CODES]
)
def test_the_client_round_trips_every_code(cls: type[EngravaGraphError], entry: ErrorCode) -> None:
    answer = httpx.Response(
        entry.status,
        json={"error": entry.code, "message": "m", "field": None},
        request=httpx.Request("GET", "http://engrava.test/v1/thoughts/x"),
    )
    error = error_from_response(answer)
    expected = ApiError if cls is EngravaGraphError else cls  # bad_request names no class
    assert type(error) is expected
    assert (error.status, error.code) == entry
    if cls is not EngravaGraphError:
        assert error_code(error) == entry


def test_every_code_the_client_knows_names_a_class_with_that_code() -> None:
    for code, cls in ERROR_CLASSES.items():
        own = INVALID_REQUEST.code if code == INVALID_REQUEST.code else ERROR_CODES[cls].code
        assert own == code, (code, cls.__name__)
    assert ERROR_CLASSES[INVALID_REQUEST.code] is ValidationFailedError
