"""Text analysis of the keyword arm, and the safe Lucene queries it sends to Neo4j's full-text
index.

The index (Neo4j's ``english`` analyzer: Lucene's ``EnglishAnalyzer``, Porter's 1980 stemmer)
only finds candidates: one Lucene query per analysed query term, each required to be in the
namespace (``+ns_token:``) and to hold one of the term's index forms (:func:`index_forms`: the
words that share the term's stem here, one per distinct Porter stem, which Lucene stems again);
in a large namespace one more query asks for any of the terms, at most
``1 + MAX_FORMS * MAX_QUERY_TERMS`` clauses (Lucene's ``maxClauseCount`` of 1024 cannot be
reached, whatever the text's length or script). The forms are what join a word to a derived
form where Porter does not: Porter stems ``deploy`` to ``deploi`` but ``deployment`` to
``deploy``, so ``deploy`` is searched as ``(deploy deployment deployfully)`` (Porter:
``deploi``, ``deploy``, ``deployfulli``; a form carries a Porter stem, need not be a word).
Matching and scoring are then decided here, on the texts the index returned: BM25 over the
namespace's own statistics (:mod:`engrava_graph.search.bm25`), term frequencies and document
frequencies both counted with the analysis below, so the query and the documents are analysed
alike:

- tokens: runs of letters/digits (joined by underscores, as in ``DATABASE_URL``: Unicode word
  segmentation keeps such identifiers whole), lowercased; each Han ideograph, Hiragana and Katakana
  character is a token of its own (as Lucene's StandardTokenizer splits them);
- stop words: Lucene's English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``), English
  question words, pronouns and auxiliary verbs, and one-letter Latin tokens (possessive ``s``,
  ``i``), so a query made only of them has no terms (no keyword signal);
- stemming: the Snowball English stemmer ("Porter2", M. F. Porter 2001, snowballstem.org; the
  ``snowballstemmer`` package, as Lucene's ``SnowballFilter`` with ``EnglishStemmer``, which runs
  the Snowball C library through ``PyStemmer`` when that is installed, as it is here: the same
  stems at a tenth of the pure-Python cost, which a new query term pays some fifty times in
  :func:`index_forms`):
  ``deploy``, ``deployed``, ``deployment`` all give ``deploy``. Not the original Porter (1980) of
  the index's analyzer, which turns a final ``y`` after a vowel into ``i`` before it removes
  ``-ment``, so ``deploy`` and ``deployment`` never meet there.

Index forms replaced prefix clauses (``(deploy deploy*)``) on 2 December 2026: a prefix expands
over the whole index's dictionary and Lucene reads every posting of every expansion into a bit
set, so its cost grew with the database (half of the keyword query's time at 1,000,000
thoughts), and it matched words of other stems (``cat*``: ``category``) that BM25 here then
scored 0 but that still took places among the index's best hits and inflated hit counts.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

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
#: At most this many index forms per term (:func:`index_forms`).
MAX_FORMS = 8
#: Endings tried on a stem for its index forms: inflections and the common derivations.
_ENDINGS = (
    "", "s", "ment", "ments", "es", "ed", "ing", "er", "ers", "y", "ies", "ness", "ly", "ion",
    "ions", "ional", "ionally", "ation", "ations", "al", "ally", "ic", "ical", "ist", "ists",
    "ism", "ity", "able", "ful", "fully", "ive", "ize", "ized", "izing", "ization",
)  # fmt: skip
#: A negated auxiliary is one token in the index (``didn't``, also with a typographic
#: apostrophe) and two here (``didn``, then a dropped ``t``).
_NEGATED = frozenset(
    "ain aren couldn didn doesn don hadn hasn haven isn mightn mustn needn shouldn wasn weren "
    "won wouldn".split()
)


def _stemmer(algorithm: str) -> Any:
    """This thread's snowballstemmer stemmer for ``algorithm`` (one keeps state while it
    stems, so threads do not share it)."""
    stemmer = getattr(_STEMMERS, algorithm, None)
    if stemmer is None:
        stemmer = snowballstemmer.stemmer(algorithm)
        setattr(_STEMMERS, algorithm, stemmer)
    return stemmer


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
    return str(_stemmer("english").stemWord(word))


@lru_cache(maxsize=65_536)
def porter_stem(word: str) -> str:
    """The original Porter (1980) stem of one lowercased a-z word, as the index's analyzer
    stems it (Lucene's ``PorterStemFilter``; the ``snowballstemmer`` package's ``porter``).

    Examples:
        >>> [porter_stem(w) for w in ["deploy", "deployed", "deployment", "general"]]
        ['deploi', 'deploi', 'deploy', 'gener']
    """
    return str(_stemmer("porter").stemWord(word))


@lru_cache(maxsize=65_536)
def index_forms(term: str) -> tuple[str, ...]:
    """Words to ask the index for so that it finds the texts holding ``term``: the term itself,
    then words with the same stem (:func:`english_stem`) made of it and a common ending (also
    with a final ``e``, a doubled last consonant, or ``y`` for a final ``i``), the first of each
    distinct Porter stem (the index holds Porter stems; a form is only a carrier of its Porter
    stem, so it need not be an English word), and for the first part of a negated auxiliary
    the token the index keeps whole (``didn't``, ``didn’t``); at most :data:`MAX_FORMS`. A term
    with a character outside a-z is its only form.

    Examples:
        >>> index_forms("deploy"), index_forms("database_url")
        (('deploy', 'deployment', 'deployfully'), ('database_url',))
        >>> index_forms("geolog")  # Porter: geologi, geologist, geologli, ...
        ('geolog', 'geology', 'geologly', 'geologist', 'geologfully')
    """
    if not _ASCII_WORD.fullmatch(term):
        return (term,)
    words = [term + ending for ending in _ENDINGS]
    words += [term + "e" + ending for ending in ("", "s", "d", "r", "rs", "ment", "ments")]
    if term[-1] not in "aeiouy":
        words += [term + term[-1] + ending for ending in ("ing", "ed", "er", "ers")]
    if term.endswith("i"):
        words += [term[:-1] + "y" + ending for ending in ("", "s")]
    by_porter_stem = {porter_stem(term): term}
    for word in words:
        if english_stem(word) == term:
            by_porter_stem.setdefault(porter_stem(word), word)
    negations = (term + "'t", term + "\u2019t") if term in _NEGATED else ()
    return (*by_porter_stem.values(), *negations)[:MAX_FORMS]


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
    """The Lucene clause that matches one analysed term: its index forms (:func:`index_forms`),
    any of them.

    ``term`` is letters, digits and inner underscores only (from :func:`analyse`), and its forms
    add only letters and apostrophes (no Lucene syntax), so nothing needs escaping and no
    operator can be formed (``and``/``or``/``not`` are stop words).

    Examples:
        >>> term_clause("deploy"), term_clause("pr")
        ('(deploy deployment deployfully)', 'pr')
    """
    forms = index_forms(term)
    return forms[0] if len(forms) == 1 else f"({' '.join(forms)})"


def term_query(term: str, ns_token: str) -> str:
    """The Lucene query for one analysed term inside the namespace ``ns_token``
    (:func:`term_clause`, required beside the namespace token).

    Examples:
        >>> term_query("deploy", "ns61"), term_query("pr", "ns61")
        ('+ns_token:ns61 +(deploy deployment deployfully)', '+ns_token:ns61 +pr')
    """
    return f"+ns_token:{ns_token} +{term_clause(term)}"
