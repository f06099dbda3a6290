"""Text analysis of the keyword arm, and the safe Lucene queries it sends to Neo4j's full-text
index.

The index (Neo4j's ``english`` analyzer: Lucene's ``EnglishAnalyzer``, Porter's 1980 stemmer)
only finds candidates: one Lucene query per analysed query term, each required to be in the
namespace (``+ns_token:``), the term itself (which Lucene stems again with Porter) or, for a term
of four characters or more, any indexed term it begins (``deploy*``), so such a query has at most
three clauses; in a large namespace one more query asks for any of the terms, at most
``1 + 2 * MAX_QUERY_TERMS`` clauses (Lucene's ``maxClauseCount`` of 1024 cannot be reached,
whatever the text's length or script; a prefix expands in constant-score mode, outside that
count). The prefix is
what joins a word to a derived form where Porter does not: Porter stems ``deploy`` to ``deploi``
but ``deployment`` to ``deploy``. Matching and scoring are then decided here, on the texts the
index returned: BM25 over the namespace's own statistics (:mod:`engrava_graph.search.bm25`),
term frequencies and document frequencies both counted with the analysis below, so the query
and the documents are analysed alike:

- tokens: runs of letters/digits (joined by underscores, as in ``DATABASE_URL``: Unicode word
  segmentation keeps such identifiers whole), lowercased; each Han ideograph, Hiragana and Katakana
  character is a token of its own (as Lucene's StandardTokenizer splits them);
- stop words: Lucene's English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``), English
  question words, pronouns and auxiliary verbs, and one-letter Latin tokens (possessive ``s``,
  ``i``), so a query made only of them has no terms (no keyword signal);
- stemming: the Snowball English stemmer ("Porter2", M. F. Porter 2001, snowballstem.org; the
  ``snowballstemmer`` package, as Lucene's ``SnowballFilter`` with ``EnglishStemmer``):
  ``deploy``, ``deployed``, ``deployment`` all give ``deploy``. Not the original Porter (1980) of
  the index's analyzer, which turns a final ``y`` after a vowel into ``i`` before it removes
  ``-ment``, so ``deploy`` and ``deployment`` never meet there.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import snowballstemmer

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

_ASCII_WORD = re.compile(r"[a-z]+")
_STEMMERS = threading.local()  # a snowballstemmer stemmer keeps state while it stems

#: At most this many distinct terms of a query are searched (one Lucene query each).
MAX_QUERY_TERMS = 32
#: A term this long or longer is also searched as a prefix of indexed terms.
PREFIX_MIN_LENGTH = 4


@lru_cache(maxsize=65_536)
def english_stem(word: str) -> str:
    """The Snowball English (Porter2) stem of one lowercased token; a token with a character
    outside a-z (digits, ``database_url``, other scripts) is returned unchanged.

    Examples:
        >>> [english_stem(w) for w in ["deploy", "deployed", "deployment", "deployments"]]
        ['deploy', 'deploy', 'deploy', 'deploy']
        >>> [english_stem(w) for w in ["schedules", "happiness", "running", "cries", "2024"]]
        ['schedul', 'happi', 'run', 'cri', '2024']
    """
    if not _ASCII_WORD.fullmatch(word):
        return word
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


def analyse(text: str) -> list[str]:
    """The terms of ``text`` in order (repeats kept): tokens, minus stop words, stemmed.

    Examples:
        >>> analyse("Is it on? Caroline's dogs, 北京!")
        ['carolin', 'dog', '北', '京']
        >>> analyse("The PR dropped DATABASE_URL; deployments")
        ['pr', 'drop', 'database_url', 'deploy']
    """
    terms = []
    for token in _TOKEN.findall(text.lower()):
        if token in STOP_WORDS or (len(token) == 1 and not _SINGLE_CHAR_TERM.match(token)):
            continue
        terms.append(english_stem(token))
    return terms


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order of first occurrence, at most
    :data:`MAX_QUERY_TERMS`; [] when no term is informative (only stop words or punctuation)."""
    return list(dict.fromkeys(analyse(text)))[:MAX_QUERY_TERMS]


def term_clause(term: str) -> str:
    """The Lucene clause that matches one analysed term: the term, or any indexed term it begins
    when it has at least :data:`PREFIX_MIN_LENGTH` characters.

    ``term`` is letters, digits and inner underscores only (from :func:`analyse`), so nothing
    needs escaping and no operator can be formed (``and``/``or``/``not`` are stop words).

    Examples:
        >>> term_clause("deploy"), term_clause("pr")
        ('(deploy deploy*)', 'pr')
    """
    return term if len(term) < PREFIX_MIN_LENGTH else f"({term} {term}*)"


def term_query(term: str, ns_token: str) -> str:
    """The Lucene query for one analysed term inside the namespace ``ns_token``
    (:func:`term_clause`, required beside the namespace token).

    Examples:
        >>> term_query("deploy", "ns61"), term_query("pr", "ns61")
        ('+ns_token:ns61 +(deploy deploy*)', '+ns_token:ns61 +pr')
    """
    return f"+ns_token:{ns_token} +{term_clause(term)}"
