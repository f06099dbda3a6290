"""Rule-based entity and keyword extraction (retrieval phase 1)."""

import pytest

from engrava_graph.retrieval.entities import STOPWORDS, extract_entities, normalise_entity


def test_spec_example_gives_the_keyword_only_at_query_time() -> None:
    query = "What caused the outage last Tuesday?"
    assert extract_entities(query, include_keywords=True) == ["outage"]
    assert extract_entities(query) == []


def test_write_time_keeps_proper_nouns_only() -> None:
    text = "Caroline went to the LGBTQ support group in Boston"
    assert extract_entities(text) == ["caroline", "lgbtq", "boston"]


def test_query_time_adds_content_words_in_text_order() -> None:
    text = "When did Caroline go to the LGBTQ support group?"
    assert extract_entities(text, include_keywords=True) == [
        "caroline",
        "lgbtq",
        "support",
        "group",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I met Melanie Smith at the Bank of America tower.", ["melanie smith", "bank of america"]),
        ('The label said "deploy freeze" until the cut', ["deploy freeze"]),
        ("We are shipping #release-cut and #Q3Goals today", ["release-cut", "q3goals"]),
        ("Who is Caroline's mentor?", ["caroline"]),
        ("We met Jon’s team in May and on Friday", ["jon"]),
        ("Paris, London and Berlin", ["paris", "london", "berlin"]),
        ("It's what I'm doing. Don't ask, They said.", []),
        ("Tell me about The Beatles", ["beatles"]),
    ],
)
def test_proper_nouns_quotes_and_hashtags(text: str, expected: list[str]) -> None:
    assert extract_entities(text) == expected


def test_sentence_initial_common_word_is_not_an_entity() -> None:
    assert extract_entities("Deploy failed at 3pm; the deploy was reverted by Jon") == ["jon"]


def test_deduplicated_in_first_seen_order() -> None:
    text = "Boston? Caroline loves BOSTON. caroline's friend met Caroline in Boston"
    assert extract_entities(text) == ["boston", "caroline"]


def test_keywords_skip_stopwords_time_words_and_short_words() -> None:
    text = "Why did the big deploy fail last week on Monday in 2023 at 3pm?"
    assert extract_entities(text, include_keywords=True) == ["big", "deploy", "fail"]


def test_normalise_entity() -> None:
    assert normalise_entity("  Caroline's, ") == "caroline"
    assert normalise_entity("Melanie   Smith") == "melanie smith"
    assert normalise_entity("!!") == ""


def test_stopwords_are_a_lowercase_frozenset() -> None:
    assert isinstance(STOPWORDS, frozenset)
    assert all(word == word.lower() for word in STOPWORDS)


def test_empty_text() -> None:
    assert extract_entities("", include_keywords=True) == []
