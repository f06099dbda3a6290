"""Rule-based entity and keyword extraction (the Encode phase of the retrieval cycle).

Deterministic and model-free, so the same text always yields the same ``Entity`` nodes.
Used at write time (proper nouns only, the default) to link ``(:Thought)-[:MENTIONS]->
(:Entity {name})``, and at query time (``include_keywords=True``) to seed spreading
activation and the keyword side of activation.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from engrava_graph.retrieval.lexicon import TEMPORAL_WORDS

STOPWORDS: Final = frozenset(
    {
        # articles, conjunctions, prepositions
        "a", "an", "the", "and", "or", "but", "nor", "so", "yet", "if", "then", "than",
        "of", "in", "on", "at", "to", "for", "from", "by", "with", "without", "about",
        "into", "onto", "over", "under", "between", "through", "across", "against",
        "among", "around", "via", "per", "as", "like", "up", "down", "out", "off",
        # pronouns and determiners
        "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
        "you", "your", "yours", "yourself", "he", "him", "his", "himself", "she", "her",
        "hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs",
        "themselves", "this", "that", "these", "those", "there", "here", "someone",
        "somebody", "anyone", "anybody", "everyone", "something", "anything",
        "everything", "nothing", "all", "any", "some", "each", "every", "both", "either",
        "neither", "other", "another", "such", "own", "same", "few", "many", "much",
        "more", "most", "less", "least", "several", "one", "ones",
        # question words
        "what", "who", "whom", "whose", "which", "where", "why", "how", "whether",
        # auxiliaries and modals
        "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did",
        "done", "doing", "have", "has", "had", "having", "can", "could", "shall",
        "should", "will", "would", "may", "might", "must", "ought",
        "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "can't",
        "won't", "i'm", "i've", "i'd", "i'll", "we're", "you're", "they're", "let",
        # light verbs
        "go", "goes", "went", "gone", "going", "get", "gets", "got", "make", "makes",
        "made", "take", "took", "taken", "give", "gave", "come", "came", "say", "said",
        "tell", "told", "know", "knew", "think", "thought", "want", "wanted", "need",
        "use", "used", "see", "saw", "seem", "seems", "happen", "happens", "happened",
        "find", "found", "feel", "felt", "keep", "kept", "put",
        # adverbs and fillers
        "not", "no", "yes", "also", "just", "only", "very", "really", "too", "again",
        "ever", "never", "still", "even", "already", "always", "often", "sometimes",
        "likely", "probably", "maybe", "perhaps", "please", "well", "else", "kind",
        "sort", "lot", "lots", "thing", "things", "stuff", "way", "able", "long",
        # intent cue words (they say what is asked, not about what)
        "cause", "caused", "causes", "causing", "because", "reason", "reasons", "result",
        "results", "resulted", "due", "lead", "leads", "led", "effect", "effects",
        "overview", "summary", "related", "ideas", "idea", "name",
    }
)  # fmt: skip
"""Lowercase words that are never entities or keywords."""

NAME_CONNECTORS: Final = frozenset({"of", "de", "van", "von", "der", "da", "del", "du", "la", "le"})
"""Lowercase words allowed inside a capitalised phrase ("Bank of America")."""

MIN_KEYWORD_LENGTH: Final = 3

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
_HASHTAG = re.compile(r"(?<![\w#])#(\w[\w-]*)")
_TOKEN = re.compile(r"[^\W\d_][\w]*(?:['&-][\w]+)*")
_SENTENCE_END = frozenset(".!?\n")
_STRIP = " \t\n.,;:!?-&'\"()[]{}"


class _Token(NamedTuple):
    start: int
    end: int
    text: str
    sentence_initial: bool


def normalise_entity(text: str) -> str:
    """Normalise an entity or keyword: lowercase, no possessive, no edge punctuation.

    Args:
        text: A word or phrase as written, e.g. ``"Caroline's"``.

    Returns:
        The normalised form, e.g. ``"caroline"``; may be empty.

    Examples:
        >>> normalise_entity("  Caroline's ")
        'caroline'
    """
    lowered = " ".join(text.replace("’", "'").lower().split()).strip(_STRIP)
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    return lowered.strip(_STRIP)


def extract_entities(text: str, *, include_keywords: bool = False) -> list[str]:
    """Extract normalised entities from text, deduplicated in first-seen order.

    Entities are quoted phrases, hashtags (without ``#``), and capitalised tokens or runs
    of them ("Melanie Smith", "Bank of America"), skipping stopwords, pronouns, question
    words, months, weekdays and other time words. A capitalised sentence-initial word
    that also appears in lowercase elsewhere in the text is treated as a common word.

    With ``include_keywords`` every other word of at least :data:`MIN_KEYWORD_LENGTH`
    characters that is neither a stopword nor a time word is added too, in text order.
    Without a part-of-speech model these are "noun-ish" only by the stopword filter.

    Args:
        text: Query or thought text.
        include_keywords: Add salient lowercase content words (query time).

    Returns:
        Normalised strings, e.g. ``["caroline", "lgbtq", "boston"]``.

    Examples:
        >>> extract_entities("Caroline went to the LGBTQ support group in Boston")
        ['caroline', 'lgbtq', 'boston']
        >>> extract_entities("What caused the outage last Tuesday?", include_keywords=True)
        ['outage']
    """
    text = text.replace("’", "'")
    found: list[tuple[int, str]] = []
    masked = text
    for pattern in (_QUOTED, _HASHTAG):
        for match in pattern.finditer(masked):
            inner = next(g for g in match.groups() if g is not None)
            found.append((match.start(), inner))
            masked = masked[: match.start()] + " " * len(match[0]) + masked[match.end() :]

    tokens = _tokenise(masked)
    lowercase_words = {t.text.lower() for t in tokens if t.text.islower()}
    used: set[int] = set()
    for phrase in _capitalised_phrases(masked, tokens, lowercase_words):
        found.append((phrase[0].start, " ".join(t.text for t in phrase)))
        used.update(t.start for t in phrase)
    if include_keywords:
        found.extend((t.start, t.text) for t in tokens if t.start not in used and _is_keyword(t))

    result: list[str] = []
    for _, raw in sorted(found, key=lambda item: item[0]):
        name = normalise_entity(raw)
        if name and name not in result:
            result.append(name)
    return result


def _tokenise(text: str) -> list[_Token]:
    tokens = []
    for match in _TOKEN.finditer(text):
        before = text[: match.start()].rstrip(" \t\"'(")
        initial = not before or before[-1] in _SENTENCE_END
        tokens.append(_Token(match.start(), match.end(), match[0], initial))
    return tokens


def _is_blocked(word: str) -> bool:
    name = normalise_entity(word)
    return not name or name in STOPWORDS or name in TEMPORAL_WORDS


def _is_name(token: _Token, lowercase_words: set[str]) -> bool:
    if not token.text[0].isupper() or _is_blocked(token.text):
        return False
    return not (token.sentence_initial and token.text.lower() in lowercase_words)


def _is_keyword(token: _Token) -> bool:
    name = normalise_entity(token.text)
    return len(name) >= MIN_KEYWORD_LENGTH and not _is_blocked(name)


def _capitalised_phrases(
    text: str, tokens: list[_Token], lowercase_words: set[str]
) -> list[list[_Token]]:
    """Group name tokens one space apart into phrases; a connector may sit inside."""
    phrases: list[list[_Token]] = []
    current: list[_Token] = []
    pending: list[_Token] = []  # a connector seen right after the current phrase
    previous_end = -1
    for token in tokens:
        adjacent = text[previous_end : token.start] == " "
        previous_end = token.end
        if _is_name(token, lowercase_words):
            if current and adjacent:
                current.extend(pending)
            else:
                _close(current, phrases)
                current = []
            current.append(token)
            pending = []
        elif current and adjacent and not pending and token.text in NAME_CONNECTORS:
            pending = [token]
        else:
            _close(current, phrases)
            current, pending = [], []
    _close(current, phrases)
    return phrases


def _close(current: list[_Token], phrases: list[list[_Token]]) -> None:
    if current:
        phrases.append(current)
