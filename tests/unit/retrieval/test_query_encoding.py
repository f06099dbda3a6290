"""Query encoding and decomposition (retrieval phases 1 and 3)."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from engrava_graph.model.bounds import blank
from engrava_graph.model.errors import InvalidQueryError
from engrava_graph.retrieval.encode import MAX_QUERY_CHARS, MAX_SUB_QUERIES, decompose, encode_query
from engrava_graph.retrieval.types import Intent

NOW = datetime(2024, 5, 16, 15, 30, tzinfo=UTC)


def test_spec_phase_1_example() -> None:
    encoding = encode_query("  What caused the outage last Tuesday?  ", now=NOW)
    assert encoding.text == "What caused the outage last Tuesday?"
    assert encoding.intent is Intent.CAUSAL
    assert encoding.entities == ["outage"]
    assert encoding.temporal is not None
    assert encoding.temporal.reference == "last Tuesday"
    assert encoding.temporal.start == datetime(2024, 5, 14, tzinfo=UTC)
    assert encoding.sub_queries == ["What caused the outage last Tuesday?"]
    assert "embedding" not in encoding.model_dump()


def test_encoding_is_frozen() -> None:
    encoding = encode_query("Who is Caroline?", now=NOW)
    with pytest.raises(ValidationError):
        encoding.intent = Intent.CAUSAL  # type: ignore[misc]


@pytest.mark.parametrize("text", ["", "   \n\t", "x" * (MAX_QUERY_CHARS + 1), None, 42])
def test_bad_query_text_is_rejected(text: object) -> None:
    with pytest.raises(InvalidQueryError) as caught:
        encode_query(text, now=NOW)  # type: ignore[arg-type]
    assert caught.value.field == "query"


@pytest.mark.parametrize(
    "text",
    ["\u200b", " \u200b\u200d\ufeff ", "\u2060\u00ad", "\u3000\u2028", "\u3164", "\ufe0f\x07"],
)
def test_a_query_of_invisible_characters_is_blank(text: str) -> None:
    assert blank(text)
    with pytest.raises(InvalidQueryError, match="visible character") as caught:
        encode_query(text, now=NOW)
    assert caught.value.field == "query"


@pytest.mark.parametrize("text", ["a", "\u200bdeploy\u200b", "?", "记", "\U0001f600"])
def test_a_query_with_one_visible_character_is_not_blank(text: str) -> None:
    assert not blank(text)
    assert encode_query(text, now=NOW).text == text.strip()


def test_longest_query_is_accepted() -> None:
    assert encode_query("a" * MAX_QUERY_CHARS, now=NOW).intent is Intent.FACTUAL


def test_naive_now_is_rejected_even_without_a_time_phrase() -> None:
    with pytest.raises(InvalidQueryError) as caught:
        encode_query("Who is Caroline?", now=datetime(2024, 5, 16))
    assert caught.value.field == "now"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Who is Caroline?", ["Who is Caroline?"]),
        ("What did Caroline and Melanie paint?", ["What did Caroline and Melanie paint?"]),
        (
            "What caused the outage and who fixed it?",
            ["What caused the outage and who fixed it?", "What caused the outage", "who fixed it"],
        ),
        (
            "Why did the deploy fail; what did we change?",
            [
                "Why did the deploy fail; what did we change?",
                "Why did the deploy fail",
                "what did we change",
            ],
        ),
        (
            "Where does Caroline live? Where does Melanie work?",
            [
                "Where does Caroline live? Where does Melanie work?",
                "Where does Caroline live",
                "Where does Melanie work",
            ],
        ),
        (
            "Tell me about the outage as well as the rollback",
            [
                "Tell me about the outage as well as the rollback",
                "Tell me about the outage",
                "the rollback",
            ],
        ),
        (
            "When did it start, who noticed, and how was it fixed?",
            [
                "When did it start, who noticed, and how was it fixed?",
                "When did it start",
                "who noticed",
                "how was it fixed",
            ],
        ),
        ("What broke? What broke?", ["What broke? What broke?"]),
    ],
)
def test_decompose(query: str, expected: list[str]) -> None:
    assert decompose(query) == expected


def test_decompose_caps_the_number_of_sub_queries() -> None:
    query = "Who came? Who left? Who stayed? Who called? Who wrote?"
    parts = decompose(query)
    assert len(parts) == MAX_SUB_QUERIES
    assert parts[0] == query and parts[1:] == ["Who came", "Who left", "Who stayed"]
