"""The keyword arm's text analysis (Snowball English stemming) and its BM25 over a namespace's
statistics: pure logic, no database."""

from __future__ import annotations

import re

import pytest
import snowballstemmer

from engrava_graph.search import bm25
from engrava_graph.search.lucene import (
    _ENDINGS,
    MAX_FORMS,
    analyse,
    english_stem,
    index_forms,
    porter_stem,
    query_terms,
    term_clause,
)

# Reference stems of the Snowball English stemmer (snowballstem.org, Snowball 3.1).
SNOWBALL_STEMS = {
    "deploy": "deploy",
    "deployed": "deploy",
    "deploying": "deploy",
    "deployment": "deploy",
    "deployments": "deploy",
    "schedule": "schedul",
    "schedules": "schedul",
    "scheduled": "schedul",
    "happiness": "happi",
    "happy": "happi",
    "generalization": "general",
    "generously": "generous",
    "organization": "organiz",
    "international": "internat",
    "university": "universiti",
    "relational": "relat",
    "conditional": "condit",
    "running": "run",
    "hopping": "hop",
    "hoped": "hope",
    "adding": "add",
    "agreed": "agre",
    "succeeded": "succeed",
    "evening": "evening",
    "dying": "die",
    "cries": "cri",
    "ties": "tie",
    "caresses": "caress",
    "gas": "gas",
    "kiwis": "kiwi",
    "news": "news",
    "skies": "sky",
    "only": "onli",
    "geologist": "geolog",
    "archaeology": "archaeolog",
    "fluently": "fluentli",
    "hopefully": "hope",
    "controllable": "control",
    "effective": "effect",
    "communism": "communism",
    "yearly": "year",
    "playing": "play",
    "cat": "cat",
    "by": "by",
}


@pytest.mark.parametrize(("word", "stem"), sorted(SNOWBALL_STEMS.items()))
def test_english_stem_gives_the_snowball_stem(word: str, stem: str) -> None:
    assert english_stem(word) == stem


def test_the_stemmers_run_on_the_snowball_c_library_with_the_pure_python_stems() -> None:
    # snowballstemmer hands its work to PyStemmer when that is installed (a dependency): the
    # same algorithms compiled, which must stem every word as the pure-Python code does.
    from snowballstemmer.english_stemmer import EnglishStemmer
    from snowballstemmer.porter_stemmer import PorterStemmer

    words = sorted(
        {w + e for w in [*SNOWBALL_STEMS, "geolog", "internation", "deploi"] for e in _ENDINGS}
    )
    for algorithm, pure in (("english", EnglishStemmer()), ("porter", PorterStemmer())):
        compiled = snowballstemmer.stemmer(algorithm)
        assert type(compiled).__module__ == "Stemmer"
        assert compiled.stemWords(words) == [pure.stemWord(w) for w in words], algorithm


def test_english_stem_leaves_other_tokens_alone() -> None:
    assert [english_stem(t) for t in ["2024", "北", "database_url", "ab", "café"]] == [
        "2024",
        "北",
        "database_url",
        "ab",
        "café",
    ]


def test_a_word_and_its_derived_forms_share_one_term() -> None:
    assert query_terms("deploy schedule") == ["deploy", "schedul"]
    assert analyse("The deployment window; deploys were scheduled") == [
        "deploy",
        "window",
        "deploy",
        "schedul",
    ]


@pytest.mark.parametrize("word", sorted(SNOWBALL_STEMS))
def test_the_index_forms_of_a_term_reach_every_porter_stem_of_its_words(word: str) -> None:
    # The index holds Porter (1980) stems: a word of the term meets one of its forms there
    # (where the prefix clause they replaced met it: not Porter2's exceptions, "skies" -> sky).
    term = english_stem(word)
    forms = index_forms(term)
    if word.isascii() and word.isalpha() and porter_stem(word).startswith(term):
        assert porter_stem(word) in {porter_stem(f) for f in forms}, (word, forms)
    assert len(forms) <= MAX_FORMS and len({porter_stem(f) for f in forms}) == len(forms)
    assert all(english_stem(f) == english_stem(word) for f in forms[1:])


def test_term_clauses_are_plain_words_never_prefixes_or_syntax() -> None:
    assert term_clause("deploy").startswith("(deploy deployment ")
    assert term_clause("database_url") == "database_url" and term_clause("2024") == "2024"
    for word in ("category", "happiness", "quickly", "organization", "didn't"):
        clause = term_clause(analyse(word)[0])
        assert re.fullmatch(r"\(?[a-z'\u2019]+( [a-z'\u2019]+)*\)?", clause), clause


def test_a_negated_auxiliary_meets_the_token_the_index_keeps_whole() -> None:
    assert analyse("I didn't go") == ["didn", "go"]
    assert {"didn't", "didn\u2019t"} <= set(index_forms("didn"))
    assert "run't" not in index_forms("run")


def test_document_frequencies_count_texts_with_the_term_under_the_same_analysis() -> None:
    texts = ["Deploy failed at 3pm", "The deployment window", "Missing env variable"]
    terms = ["deploy", "schedul"]
    candidates = [bm25.Candidate.of_text(text, text, terms) for text in texts]
    assert bm25.document_frequencies(candidates, terms) == {
        "deploy": 2,
        "schedul": 0,
    }


def test_bm25_scores_only_what_the_analysis_matches() -> None:
    terms = ["deploy", "generat"]
    candidates = [
        bm25.Candidate.of_text("window", "The deployment window is Tuesday 2-4pm UTC", terms),
        bm25.Candidate.of_text("failed", "Deploy failed at 3pm", terms),
        bm25.Candidate.of_text("general", "A general remark", terms),  # Porter-only "generate"
    ]
    stats = bm25.CorpusStats(documents=100, mean_length=30.0)
    ranked = bm25.score(candidates, terms, {"deploy": 2, "generat": 1}, stats)
    assert [tid for tid, _ in ranked] == ["failed", "window"]  # the shorter text first
    assert all(s > 0 for _, s in ranked)


def test_a_candidate_counts_the_query_terms_in_query_order() -> None:
    text = "Deploy failed: the deploy key expired, deployments paused"
    candidate = bm25.Candidate.of_text("t", text, ["deploy", "key", "lunch"])
    assert candidate == ("t", (3, 1, 0), len(text))
