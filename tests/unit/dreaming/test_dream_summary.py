"""Extractive reflection summary: key phrases, centroid, representative, excerpts, extent."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from engrava_graph.dreaming.config import DreamingConfig
from engrava_graph.dreaming.summary import Member, centroid, draft, key_phrases, tokens


def _member(i, text, vec, **kw):
    fields = {"created_cycle": i, "confidence": None, "valid_from": None, "valid_until": None}
    fields.update(kw)
    return Member(
        thought_id=f"m{i}",
        essence=text,
        content=text,
        embedding=np.asarray(vec, dtype=float),
        **fields,
    )


def test_tokens_drop_stopwords_and_short_words():
    assert tokens("The dog and I ran to the park, with Max!") == ["dog", "ran", "park", "max"]


def test_key_phrases_prefer_shared_and_longer_phrases():
    texts = [
        "Caroline adopted a golden retriever puppy",
        "The golden retriever puppy sleeps all day",
        "Caroline walks the golden retriever puppy",
    ]
    assert key_phrases(texts, 2) == ["golden retriever puppy", "caroline"]
    assert key_phrases(["alpha beta", "gamma delta"], 3) == []  # nothing shared


def test_centroid_is_the_unit_mean():
    c = centroid(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert np.allclose(c, [2**-0.5, 2**-0.5])
    assert np.allclose(centroid(np.array([[1.0, 0.0], [-1.0, 0.0]])), [0.0, 0.0])


def test_draft_summarises_around_the_member_nearest_the_centroid():
    day = datetime(2024, 5, 1, tzinfo=UTC)
    members = [
        _member(
            1, "Budget review moved to Friday", [1.0, 0.0, 0.0], confidence=0.9, valid_from=day
        ),
        _member(
            2,
            "The budget review is on Friday",
            [0.9, 0.1, 0.1],
            confidence=0.5,
            valid_from=day.replace(day=3),
        ),
        _member(
            3, "Friday budget review needs numbers", [0.8, 0.2, 0.2], valid_from=day.replace(day=2)
        ),
    ]
    d = draft(members, DreamingConfig(top_member_excerpts_count=2))
    assert d.representative_id == "m2" and d.essence == members[1].essence
    assert d.excerpt_ids[0] == "m2" and len(d.excerpt_ids) == 2
    assert d.content.startswith(
        "Consolidated from 3 thoughts (cycles 1-3). Key phrases: budget review; friday."
    )
    assert d.content.count("\n- ") == 2
    assert d.confidence == pytest.approx(0.7)
    assert d.valid_from == day and d.valid_until is None
    assert np.isclose(np.linalg.norm(d.centroid), 1.0) and d.cycle_span == (1, 3)


def test_excerpts_are_clipped_and_a_cluster_needs_two_members():
    long = "word " * 100
    d = draft(
        [_member(1, long, [1, 0]), _member(2, long, [1, 0.1])],
        DreamingConfig(member_excerpt_max_chars=30),
    )
    assert all(len(line) <= 32 for line in d.content.splitlines()[1:])
    with pytest.raises(ValueError):
        draft([_member(1, "alone", [1, 0])], DreamingConfig())


def test_the_essence_comes_from_the_nearest_member_that_shows_something():
    """A member whose essence is blank (only whitespace and invisible characters, stored before
    writes refused it) never gives the reflection its essence; with no visible essence at all
    the cluster yields no reflection."""
    members = [
        _member(1, "\u200b", [1.0, 0.0]),
        _member(2, "Budget review moved to Friday", [0.8, 0.6]),
        _member(3, " \u2060\ufeff ", [0.9, 0.1]),
    ]
    d = draft(members, DreamingConfig())
    assert d is not None and (d.representative_id, d.essence) == ("m2", members[1].essence)
    assert draft([members[0], members[2]], DreamingConfig()) is None
