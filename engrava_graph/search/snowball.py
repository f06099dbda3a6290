"""The Snowball English stemmer ("Porter2", M. F. Porter 2001, snowballstem.org/algorithms/english),
the stemmer of Lucene's ``SnowballFilter`` with ``EnglishStemmer``; pure functions.

Why not the original Porter (1980) of Neo4j's ``english`` analyzer (Lucene's ``PorterStemFilter``):
it turns a final ``y`` after a vowel into ``i`` before it removes ``-ment``, so ``deploy`` becomes
``deploi`` and ``deployment`` becomes ``deploy``: the two never meet. Porter2 keeps such a ``y``
(``deploy``, ``deployed``, ``deploying``, ``deployment`` and ``deployments`` all stem to
``deploy``) and fixes a few other over- and under-stemmings of the original.

Input is one lowercased token (letters, digits, underscores); a token of two letters or fewer, or
one with a character outside a-z, is returned unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

_VOWELS: Final = frozenset("aeiouy")
_DOUBLES: Final = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDINGS: Final = frozenset("cdeghkmnrt")
_ASCII_WORD: Final = re.compile(r"[a-z]+")

#: Words whose stem is irregular (the algorithm's first exception list).
_EXCEPTIONS: Final[Mapping[str, str]] = {
    "skis": "ski",
    "skies": "sky",
    "idly": "idl",
    "gently": "gentl",
    "ugly": "ugli",
    "early": "earli",
    "only": "onli",
    "singly": "singl",
    "sky": "sky",
    "news": "news",
    "howe": "howe",
    "atlas": "atlas",
    "cosmos": "cosmos",
    "bias": "bias",
    "andes": "andes",
}
#: Stems that keep ``-eed`` (succeed, proceed, exceed) and ``-ing`` (evening, inning, ...).
_KEEP_EED: Final = frozenset(("succ", "proc", "exc"))
_KEEP_ING: Final = frozenset(("even", "cann", "inn", "earr", "herr", "out"))
#: Prefixes after which R1 starts (instead of after the first non-vowel following a vowel).
_R1_PREFIXES: Final = (
    "arsen",
    "commun",
    "emerg",
    "gener",
    "inter",
    "later",
    "organ",
    "past",
    "univers",
)

_STEP2: Final[tuple[tuple[str, str], ...]] = (
    ("ization", "ize"),
    ("ational", "ate"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("iveness", "ive"),
    ("tional", "tion"),
    ("biliti", "ble"),
    ("lessli", "less"),
    ("ogist", "og"),
    ("entli", "ent"),
    ("ation", "ate"),
    ("alism", "al"),
    ("aliti", "al"),
    ("ousli", "ous"),
    ("iviti", "ive"),
    ("fulli", "ful"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("abli", "able"),
    ("izer", "ize"),
    ("ator", "ate"),
    ("alli", "al"),
    ("bli", "ble"),
    ("ogi", "og"),
    ("li", ""),
)
_STEP3: Final[tuple[tuple[str, str], ...]] = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("alize", "al"),
    ("icate", "ic"),
    ("iciti", "ic"),
    ("ative", ""),
    ("ical", "ic"),
    ("ness", ""),
    ("ful", ""),
)
_STEP4: Final = (
    "ement",
    "ance",
    "ence",
    "able",
    "ible",
    "ment",
    "ant",
    "ent",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "ion",
    "al",
    "er",
    "ic",
)


def _is_vowel(word: str, i: int) -> bool:
    return word[i] in _VOWELS


def _region_start(word: str, start: int) -> int:
    """Index after the first non-vowel that follows a vowel, at or after ``start``."""
    for i in range(start + 1, len(word)):
        if not _is_vowel(word, i) and _is_vowel(word, i - 1):
            return i + 1
    return len(word)


def _regions(word: str) -> tuple[int, int]:
    """``(R1, R2)`` start indices."""
    r1 = next((len(p) for p in _R1_PREFIXES if word.startswith(p)), None)
    if r1 is None:
        r1 = _region_start(word, 0)
    return r1, _region_start(word, r1)


def _short_syllable_at_end(word: str) -> bool:
    """The word ends in a short syllable: non-vowel, vowel, non-vowel other than w, x or Y; or
    it is a vowel followed by a non-vowel and nothing else."""
    n = len(word)
    if word.endswith("past"):
        return True
    if n == 2:
        return _is_vowel(word, 0) and not _is_vowel(word, 1)
    return (
        n >= 3
        and not _is_vowel(word, n - 3)
        and _is_vowel(word, n - 2)
        and not _is_vowel(word, n - 1)
        and word[-1] not in "wxY"
    )


def _is_short(word: str, r1: int) -> bool:
    return r1 >= len(word) and _short_syllable_at_end(word)


def _has_vowel(part: str) -> bool:
    return any(ch in _VOWELS for ch in part)


def _step1a(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ied", "ies")):
        return word[:-2] if len(word) > 4 else word[:-1]
    if word.endswith(("us", "ss")):
        return word
    if word.endswith("s") and _has_vowel(word[:-2]):
        return word[:-1]
    return word


def _step1b(word: str, r1: int) -> str:
    for suffix in ("eedly", "eed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + "ee" if len(stem) >= r1 and stem not in _KEEP_EED else word
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if suffix == "ing" and stem in _KEEP_ING:
                return word
            if suffix == "ing" and len(stem) == 2 and stem[1] == "y" and stem[0] not in _VOWELS:
                return stem[0] + "ie"  # dying, lying, tying
            if not _has_vowel(stem):
                return word
            if stem.endswith(("at", "bl", "iz")):
                return stem + "e"
            if stem.endswith(_DOUBLES):
                # a double after a single a, e or o stays (add, egg, odd)
                return stem if len(stem) == 3 and stem[0] in "aeo" else stem[:-1]
            if _is_short(stem, r1):
                return stem + "e"
            return stem
    return word


def _step1c(word: str) -> str:
    if len(word) > 2 and word[-1] in "yY" and not _is_vowel(word, -2):
        return word[:-1] + "i"
    return word


def _step2(word: str, r1: int) -> str:
    for suffix, replacement in _STEP2:
        if word.endswith(suffix):
            if len(word) - len(suffix) < r1:
                return word
            if suffix == "ogi" and not word[:-3].endswith("l"):
                return word
            if suffix == "li" and (len(word) < 3 or word[-3] not in _LI_ENDINGS):
                return word
            return word[: -len(suffix)] + replacement
    return word


def _step3(word: str, r1: int, r2: int) -> str:
    for suffix, replacement in _STEP3:
        if word.endswith(suffix):
            start = len(word) - len(suffix)
            if start < r1 or (suffix == "ative" and start < r2):
                return word
            return word[:start] + replacement
    return word


def _step4(word: str, r2: int) -> str:
    for suffix in _STEP4:
        if word.endswith(suffix):
            start = len(word) - len(suffix)
            if start < r2:
                return word
            if suffix == "ion" and (start == 0 or word[start - 1] not in "st"):
                return word
            return word[:start]
    return word


def _step5(word: str, r1: int, r2: int) -> str:
    last = len(word) - 1
    if word.endswith("e") and (
        last >= r2 or (last >= r1 and not _short_syllable_at_end(word[:-1]))
    ):
        return word[:-1]
    if word.endswith("ll") and last >= r2:
        return word[:-1]
    return word


def english_stem(word: str) -> str:
    """The Snowball English (Porter2) stem of one lowercased token.

    Examples:
        >>> [english_stem(w) for w in ["deploy", "deployed", "deployment", "deployments"]]
        ['deploy', 'deploy', 'deploy', 'deploy']
        >>> [english_stem(w) for w in ["schedules", "happiness", "running", "cries", "news"]]
        ['schedul', 'happi', 'run', 'cri', 'news']
    """
    if len(word) <= 2 or not _ASCII_WORD.fullmatch(word):
        return word
    if word in _EXCEPTIONS:
        return _EXCEPTIONS[word]
    # A y at the start or after a vowel is a consonant (Y).
    chars = list(word)
    for i, ch in enumerate(chars):
        if ch == "y" and (i == 0 or chars[i - 1] in _VOWELS):
            chars[i] = "Y"
    word = "".join(chars)
    r1, r2 = _regions(word)
    word = _step1a(word)
    word = _step1c(_step1b(word, r1))
    word = _step5(_step4(_step3(_step2(word, r1), r1, r2), r2), r1, r2)
    return word.replace("Y", "y")
