"""Text analysis of the keyword arm, and the safe Lucene queries it sends to Neo4j's full-text
index.

The index (English analyzer) only finds candidates: one Lucene query per analysed query term,
each required to be in the namespace (``+ns_token:``), so no query ever has more than two
clauses (Lucene's ``maxClauseCount`` of 1024 cannot be reached, whatever the text's length or
script). Scoring is BM25 over the namespace's own statistics (:mod:`engrava_graph.search.bm25`),
on the analysis below:

- tokens: runs of letters/digits (joined by underscores, as in ``DATABASE_URL``: Unicode word
  segmentation keeps such identifiers whole), lowercased; each Han ideograph, Hiragana and Katakana
  character is a token of its own (as Lucene's StandardTokenizer splits them);
- stop words: Lucene's English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``), English
  question words, pronouns and auxiliary verbs, and one-letter Latin tokens (possessive ``s``,
  ``i``), so a query made only of them has no terms (no keyword signal);
- light stemming: Lucene's ``EnglishMinimalStemmer`` (Harman's S-stemmer, plural ``-s``/``-ies``).
"""

from __future__ import annotations

import re

#: Lucene's EnglishAnalyzer stop set (org.apache.lucene.analysis.en.EnglishAnalyzer).
LUCENE_STOP_WORDS = frozenset(
    (
        "a an and are as at be but by for if in into is it no not of on or such that the their "
        "then there these they this to was will with"
    ).split()
)
#: Question words, pronouns and auxiliary verbs: frequent in questions, rarely the answer's.
FUNCTION_WORDS = frozenset(
    (
        "what when where who whom which why how did do does done have has had i you he she we me "
        "my your his her our its him them was were been being am can could would should shall may "
        "might must about from"
    ).split()
)
STOP_WORDS = LUCENE_STOP_WORDS | FUNCTION_WORDS

_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+(?:_+[^\W_]+)*", re.UNICODE
)
_SINGLE_CHAR_TERM = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\d]")

#: At most this many distinct terms of a query are searched (one Lucene query each).
MAX_QUERY_TERMS = 32


def minimal_stem(word: str) -> str:
    """Lucene's ``EnglishMinimalStemmer`` (Harman 1991): plural endings only.

    Examples:
        >>> [minimal_stem(w) for w in ["stories", "dogs", "boxes", "shoes", "bus", "glass"]]
        ['story', 'dog', 'boxe', 'shoes', 'bus', 'glass']
    """
    if len(word) < 3 or word[-1] != "s" or word[-2] in "us":
        return word
    if word[-2] == "e":
        if len(word) > 3 and word[-3] == "i" and word[-4] not in "ae":
            return word[:-3] + "y"
        if word[-3] in "iaoe":
            return word
    return word[:-1]


def analyse(text: str) -> list[str]:
    """The terms of ``text`` in order (repeats kept): tokens, minus stop words, stemmed.

    Examples:
        >>> analyse("Is it on? Caroline's dogs, 北京!")
        ['caroline', 'dog', '北', '京']
        >>> analyse("The PR dropped DATABASE_URL")
        ['pr', 'dropped', 'database_url']
    """
    terms = []
    for token in _TOKEN.findall(text.lower()):
        if token in STOP_WORDS or (len(token) == 1 and not _SINGLE_CHAR_TERM.match(token)):
            continue
        terms.append(minimal_stem(token))
    return terms


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order of first occurrence, at most
    :data:`MAX_QUERY_TERMS`; [] when no term is informative (only stop words or punctuation)."""
    return list(dict.fromkeys(analyse(text)))[:MAX_QUERY_TERMS]


def term_query(term: str, ns_token: str) -> str:
    """The Lucene query for one analysed term inside the namespace ``ns_token``.

    ``term`` is letters, digits and inner underscores only (from :func:`analyse`), so nothing
    needs escaping and no operator can be formed (``and``/``or``/``not`` are stop words).
    """
    return f"+ns_token:{ns_token} +{term}"
