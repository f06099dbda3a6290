"""Pure parts of the cycle's phases: min_confidence, the reflection cap and calibrated scores
(Filter, Score). Spreading over the pool, decay and ranking run in Cypher:
tests/integration/test_ranking_in_cypher.py."""

from engrava_graph.retrieval import phases
from engrava_graph.retrieval.candidates import RANKING_FIELDS, Candidate, MemoryFields
from engrava_graph.retrieval.config import RetrievalConfig


def fields(tid: str, *, thought_type: str = "OBSERVATION") -> MemoryFields:
    """The fields of a memory as the ranking read returns them (retrieval/_ranking_fields)."""
    row = dict.fromkeys(RANKING_FIELDS)
    row.update(thought_id=tid, element_id=f"4:x:{tid}", thought_type=thought_type, priority="P3")
    row.update(pinned=False, access_count=0)
    return MemoryFields.from_row(list(row.values())).with_display([tid, tid, "{}"])


def test_min_confidence_keeps_what_reaches_it() -> None:
    low, high = Candidate("low", confidence=0.3), Candidate("high", confidence=0.8)
    assert phases.min_confidence([high, low], 0.7) == [high]
    assert low.dropped_in == "filter"


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
