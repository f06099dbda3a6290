"""Clusters: components, label-propagation split, size bounds, identity, determinism."""

from __future__ import annotations

import numpy as np

from engrava_graph.dreaming.clusters import (
    ClusterEdges,
    SimilarityGraph,
    cluster,
    cluster_key,
    reflection_id,
)


def _graph(n, pairs):
    a, b, w = zip(*pairs, strict=True) if pairs else ((), (), ())
    return SimilarityGraph.from_pairs(n, a, b, w)


def test_pairs_are_undirected_deduplicated_and_keep_the_best_weight():
    g = _graph(4, [(1, 0, 0.8), (0, 1, 0.9), (2, 2, 1.0), (3, 2, 0.7)])
    assert g.a.tolist() == [0, 2] and g.b.tolist() == [1, 3]
    assert np.allclose(g.weight, [0.9, 0.7])


def test_components_become_clusters_within_size_bounds():
    pairs = [(0, 1, 0.9), (1, 2, 0.9), (3, 4, 0.9), (5, 6, 0.9), (6, 7, 0.9), (7, 8, 0.9)]
    found = cluster(_graph(10, pairs), min_size=3, max_size=None, seed=1)
    assert found.clusters == [[0, 1, 2], [5, 6, 7, 8]]  # {3, 4} is too small, 9 alone
    assert found.rejected_oversize == 0


def test_an_oversized_component_is_split_into_communities():
    # two 4-cliques joined by one weak bridge: one component of 8
    clique = [(i, j, 0.95) for i in range(4) for j in range(i + 1, 4)]
    pairs = clique + [(i + 4, j + 4, w) for i, j, w in clique] + [(3, 4, 0.71)]
    found = cluster(_graph(8, pairs), min_size=3, max_size=5, seed=7)
    assert found.clusters == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert found.split_components == 1 and found.rejected_oversize == 0


def test_a_community_still_too_large_is_rejected():
    pairs = [(i, j, 0.9) for i in range(6) for j in range(i + 1, 6)]  # one 6-clique
    found = cluster(_graph(6, pairs), min_size=2, max_size=4, seed=0)
    assert found.clusters == [] and found.rejected_oversize == 1


def test_clustering_is_deterministic():
    rng = np.random.default_rng(3)
    pairs = [
        (int(a), int(b), float(w))
        for a, b, w in zip(
            rng.integers(0, 60, 200), rng.integers(0, 60, 200), rng.random(200), strict=True
        )
    ]
    runs = [cluster(_graph(60, pairs), min_size=2, max_size=8, seed=5).clusters for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


def test_internal_edges_stay_inside_their_cluster():
    g = _graph(5, [(0, 1, 0.9), (1, 2, 0.8), (2, 3, 0.75), (3, 4, 0.9)])
    edges = ClusterEdges(g, [[3, 4], [0, 1, 2]])
    assert [(a, b) for a, b, _ in edges.of(0)] == [(3, 4)]
    assert [(a, b) for a, b, _ in edges.of(1)] == [(0, 1), (1, 2)]
    assert edges.of(2) == []


def test_cluster_identity_is_order_free_and_per_namespace():
    assert cluster_key(["b", "a"]) == cluster_key(["a", "b"]) != cluster_key(["a", "c"])
    assert len(cluster_key(["a"])) == 16
    key = cluster_key(["a", "b"])
    assert reflection_id("ns1", key) == reflection_id("ns1", key) != reflection_id("ns2", key)


def test_label_propagation_reads_each_nodes_neighbours_in_pair_order():
    # the sums that pick a label add in this order, so the split is the same as with the
    # per-node lists it replaces (one Python tuple per pair)
    from engrava_graph.dreaming.clusters import _Adjacency

    g = _graph(5, [(0, 3, 0.9), (1, 0, 0.8), (2, 4, 0.7), (0, 2, 0.75), (3, 2, 0.85)])
    expected: dict[int, list[tuple[int, float]]] = {x: [] for x in range(5)}
    for x, y, w in zip(g.a.tolist(), g.b.tolist(), g.weight.tolist(), strict=True):
        expected[x].append((y, w))
        expected[y].append((x, w))
    adjacency = _Adjacency.of(g)
    assert {x: list(adjacency.neighbours(x)) for x in range(5)} == expected
