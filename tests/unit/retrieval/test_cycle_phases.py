"""Pure parts of the cycle's phases: near-duplicate collapse, min_confidence, session
activation, time ranges and calibrated scores (Spread, Decay, Filter, Score)."""

from datetime import UTC, datetime

from engrava_graph.retrieval import phases
from engrava_graph.retrieval.candidates import RANKING_FIELDS, Candidate, MemoryFields
from engrava_graph.retrieval.config import RetrievalConfig
from engrava_graph.retrieval.types import TemporalRange


def fields(
    tid: str,
    *,
    thought_type: str = "OBSERVATION",
    conversation: str | None = None,
    position: int | None = None,
    valid_from: datetime | None = None,
) -> MemoryFields:
    """The fields of a memory as the ranking read returns them (retrieval/_ranking_fields)."""
    row = dict.fromkeys(RANKING_FIELDS)
    row.update(
        thought_id=tid,
        element_id=f"4:x:{tid}",
        thought_type=thought_type,
        priority="P3",
        pinned=False,
        access_count=0,
        updated_cycle=0,
        conversation_id=conversation,
        position=position,
    )
    if valid_from is not None:
        row["valid_from_s"], row["valid_from_us"] = int(valid_from.timestamp()), 0
    return MemoryFields.from_row(list(row.values())).with_display([tid, tid, "{}"])


def test_min_confidence_keeps_what_reaches_it() -> None:
    low, high = Candidate("low", confidence=0.3), Candidate("high", confidence=0.8)
    assert phases.min_confidence([high, low], 0.7) == [high]
    assert low.dropped_in == "filter"


def _message(tid: str, cosine: float, position: int, conversation: str = "s1") -> Candidate:
    return Candidate(
        tid, cosine=cosine, fields=fields(tid, conversation=conversation, position=position)
    )


def test_a_message_takes_the_best_neighbour_similarity_within_the_window() -> None:
    config = RetrievalConfig(vector_share=1.0, conversation_window=2, neighbour_decay=0.5)
    question = _message("q", 0.8, 4)
    reply = _message("r", 0.1, 5)
    far = _message("f", 0.2, 7)
    other = _message("o", 0.9, 6, conversation="s2")
    phases.spread({c.thought_id: c for c in (question, reply, far, other)}, config, True)
    assert reply.spread == 0.8  # the adjacent question, weight 1
    assert far.spread == 0.05  # the reply two positions away, weight 0.5; not s2's message
    assert question.spread == 0.1
    assert "CONVERSATION from q" in reply.via
    assert other.spread == 0.0


def test_the_session_signal_is_the_mean_of_its_best_matches() -> None:
    config = RetrievalConfig(vector_share=1.0, session_top=2, conversation_window=0)
    ms = [_message(f"m{i}", cos, i * 10) for i, cos in enumerate((0.9, 0.5, 0.1))]
    reached = Candidate(
        "x", reached_by="spread", cosine=0.0, fields=fields("x", conversation="s1", position=99)
    )
    note = Candidate("n", cosine=0.9, fields=fields("n", conversation="s1"))
    alone = _message("a", 0.4, 0, conversation="s2")
    phases.spread({c.thought_id: c for c in (*ms, reached, note, alone)}, config, True)
    assert all(abs(c.session - 0.7) < 1e-9 for c in (*ms, reached))
    assert alone.session == 0.2 and note.session == 0.0
    assert reached.via == ["SESSION from s1"]


def test_relevance_is_a_weighted_mean_of_own_spread_and_session() -> None:
    config = RetrievalConfig(vector_share=1.0, spread_gain=0.5, session_gain=0.5)
    c = Candidate("c", cosine=0.6, spread=0.8, session=0.2)
    assert abs(c.relevance(config, True) - (0.6 + 0.4 + 0.1) / 2.0) < 1e-9


def test_a_memory_outside_the_named_range_is_marked_and_penalised() -> None:
    week = TemporalRange(
        reference="last week",
        direction="within",
        start=datetime(2024, 5, 6, tzinfo=UTC),
        end=datetime(2024, 5, 13, tzinfo=UTC),
    )
    inside = Candidate("in", fields=fields("in", valid_from=datetime(2024, 5, 8, tzinfo=UTC)))
    outside = Candidate("out", fields=fields("out", valid_from=datetime(2024, 4, 1, tzinfo=UTC)))
    now = datetime(2024, 5, 15, tzinfo=UTC)
    phases.decay(
        {"in": inside, "out": outside},
        axis="access",
        now=now,
        recency=None,
        decay_rate=0.05,
        temporal=week,
    )
    assert inside.in_range is True and inside.temporal == 1.0
    assert outside.in_range is False and outside.temporal < 0.5


def test_decay_ages_an_unaccessed_memory_from_when_it_happened() -> None:
    old = Candidate("old", fields=fields("old", valid_from=datetime(2023, 1, 1, tzinfo=UTC)))
    new = Candidate("new", fields=fields("new", valid_from=datetime(2024, 1, 1, tzinfo=UTC)))
    phases.decay(
        {"old": old, "new": new},
        axis="access",
        now=datetime(2024, 1, 2, tzinfo=UTC),
        recency=None,
        decay_rate=0.05,
        temporal=None,
    )
    assert old.temporal < new.temporal < 1.0


def test_confidence_never_rises_down_the_ranking() -> None:
    ranked = [
        Candidate("a", composite=0.5),
        Candidate("b", composite=0.49),
        Candidate("c", composite=0.1),
    ]
    phases.score(ranked, RetrievalConfig())
    confidences = [c.confidence for c in ranked]
    assert confidences == sorted(confidences, reverse=True)


def _typed(tid: str, thought_type: str) -> Candidate:
    return Candidate(tid, fields=fields(tid, thought_type=thought_type))


def test_at_most_one_reflection_in_the_top_five() -> None:
    kinds = [
        "REFLECTION",
        "REFLECTION",
        "OBSERVATION",
        "REFLECTION",
        "OBSERVATION",
        "OBSERVATION",
        "OBSERVATION",
        "OBSERVATION",
    ]
    ranked = [_typed(f"c{i}", k) for i, k in enumerate(kinds)]
    out = [c.thought_id for c in phases.cap_reflections(ranked, cap=1, window=5)]
    assert out == ["c0", "c2", "c4", "c5", "c6", "c1", "c3", "c7"]
    assert sum(c.startswith("c") and kinds[int(c[1:])] == "REFLECTION" for c in out[:5]) == 1
