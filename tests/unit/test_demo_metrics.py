"""The demo's IR metrics, its scoring of rankings and its tables (no database)."""

from __future__ import annotations

import math

import pytest

from engrava_graph.demo.evaluate import OVERALL, Answer, categories_of, summarize
from engrava_graph.demo.locomo import evidence_of, fingerprint, session_id
from engrava_graph.demo.metrics import (
    evidence_recall_at_k,
    percentiles,
    session_hit_at_k,
    session_ndcg_at_k,
)
from engrava_graph.demo.report import latency_table, markdown_table, score_table


def test_evidence_recall_counts_covered_gold_turns_in_the_top_k():
    ranked = [{"D1:1"}, set(), {"D2:3", "D1:2"}]
    assert evidence_recall_at_k(ranked, {"D1:2", "D2:3"}, 1) == 0.0
    assert evidence_recall_at_k(ranked, {"D1:2", "D2:3"}, 3) == 1.0
    assert evidence_recall_at_k(ranked, {"D1:1", "D9:9"}, 10) == 0.5
    assert evidence_recall_at_k([], {"D1:1"}, 5) == 0.0


def test_session_hit_is_any_result_in_a_gold_session():
    sessions = [{"S2"}, {"S1"}]
    assert session_hit_at_k(sessions, {"S1"}, 1) == 0.0
    assert session_hit_at_k(sessions, {"S1"}, 2) == 1.0


def test_session_ndcg_rewards_each_gold_session_once_and_early():
    gold = {"S1", "S2"}
    ideal = 1 + 1 / math.log2(3)
    assert session_ndcg_at_k([{"S1"}, {"S2"}], gold, 5) == pytest.approx(1.0)
    assert session_ndcg_at_k([{"S1"}, {"S1"}, {"S2"}], gold, 5) == pytest.approx(
        (1 + 1 / math.log2(4)) / ideal
    )
    assert session_ndcg_at_k([{"S3"}], gold, 5) == 0.0
    assert session_ndcg_at_k([{"S1"}], set(), 5) == 0.0


def test_percentiles_interpolate_linearly():
    got = percentiles([1.0, 2.0, 3.0, 4.0])
    assert got == {"p50": 2.5, "p95": pytest.approx(3.85), "mean": 2.5}
    assert percentiles([])["p95"] == 0.0


def test_locomo_ids_and_fingerprints():
    assert session_id("D12:4") == "S12"
    assert evidence_of({"dia_id": "D1:2,D3:4"}) == {"D1:2", "D3:4"}
    assert evidence_of({"kind": "session"}) == set()
    sample = {"sample_id": "x", "conversation": {"a": 1}}
    assert fingerprint(sample) == fingerprint(dict(reversed(list(sample.items()))))
    assert fingerprint(sample) != fingerprint({**sample, "qa": []})


def _answer(system: str, category: str, ranked: list[set[str]], latency: float) -> Answer:
    return Answer(
        system=system,
        conversation="c",
        category=category,
        evidence=frozenset({"D1:1"}),
        ranked=tuple(f"t{i}" for i in range(len(ranked))),
        turns=tuple(frozenset(r) for r in ranked),
        sessions=tuple(frozenset(session_id(d) for d in r) for r in ranked),
        latency_ms=latency,
    )


def _figures() -> dict:
    answers = [
        _answer("vector", "single-hop", [{"D1:1"}], 10.0),
        _answer("vector", "temporal", [set(), {"D1:1"}], 30.0),
        _answer("retrieve", "single-hop", [set()], 20.0),
        _answer("retrieve", "temporal", [{"D1:1"}], 40.0),
    ]
    figures = summarize(answers, top_k=10)
    figures["meta"] = {"top_k": 10}
    return figures


def test_summarize_scores_each_category_and_overall_in_system_order():
    figures = _figures()
    assert list(figures["scores"]) == ["retrieve", "vector"]
    vector = figures["scores"]["vector"]
    assert list(vector) == ["temporal", "single-hop", OVERALL]
    assert vector["temporal"]["recall_at_k"][:2] == [0.0, 1.0]
    assert vector[OVERALL]["questions"] == 2
    assert vector[OVERALL]["recall_at_k"][0] == 0.5
    assert vector[OVERALL]["session_hit_at_k"][0] == 0.5
    assert len(vector[OVERALL]["recall_at_k"]) == 10
    assert figures["latency_ms"]["vector"]["p50"] == 20.0
    assert figures["latency_samples_ms"]["retrieve"] == [20.0, 40.0]
    assert figures["rankings_sha256"] == _figures()["rankings_sha256"]


def test_categories_follow_locomo_order_then_unknown_then_overall():
    answers = [_answer("vector", c, [], 1.0) for c in ("zzz", "adversarial", "multi-hop")]
    assert categories_of(answers) == ["multi-hop", "adversarial", "zzz", OVERALL]


def test_tables_have_one_row_per_category_and_system():
    figures = _figures()
    headers, rows = score_table(figures)
    assert headers == ["category", "system", "questions", "R@5", "R@10", "S-hit@1", "S-NDCG@5"]
    assert [r[:2] for r in rows][:2] == [["temporal", "retrieve"], ["temporal", "vector"]]
    assert len(rows) == 6
    assert latency_table(figures)[1][0][:2] == ["retrieve", "30.0"]
    assert markdown_table(["a", "b"], [["1", "2"]]).splitlines() == [
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
    ]


def test_calibration_error_weights_each_bin_by_its_results():
    from engrava_graph.demo.metrics import calibration

    result = calibration([0.95, 0.95, 0.15, 0.15], [True, False, False, False])
    # bin 9: confidence 0.95, accuracy 0.5; bin 1: confidence 0.15, accuracy 0.0
    assert result["ece"] == pytest.approx(0.5 * 0.45 + 0.5 * 0.15)
    assert [b["n"] for b in result["bins"]] == [0, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    assert calibration([1.0], [True])["ece"] == 0.0  # 1.0 falls in the last bin
    assert calibration([], [])["ece"] == 0.0


def test_routing_accuracy_counts_only_questions_where_pathways_differ():
    from engrava_graph.demo.metrics import routing_accuracy

    result = routing_accuracy(
        [
            {"exact": 1.0, "energy": 0.5, "attention": 1.0},
            {"exact": 0.5, "energy": 0.5, "attention": 0.5},
            {"exact": 0.0, "energy": 1.0, "attention": 0.0},
        ],
        ["attention", "exact", "exact"],
    )
    assert (result["differing"], result["correct"], result["accuracy"]) == (2, 1, 0.5)
    assert result["best_counts"] == {"attention": 1, "energy": 1, "exact": 1}
