"""Clusters from a similarity graph: connected components, split by label propagation when too
large, bounded by size; and the identity of a cluster. Pure and deterministic.

Nodes are indices into the pass's candidate list (sorted by ``thought_id``), edges the neighbour
pairs Neo4j returned above the similarity threshold. Components come from union-find; a component
above ``max_size`` is split into communities by weighted label propagation (Raghavan, Albert &
Kumara 2007) with a seeded visiting order and ties to the smallest label (as the peer's
``_lpa_clusters``); communities outside ``[min_size, max_size]`` make no reflection.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_DREAMING_IDS = uuid.UUID("6f1c2a0e-5d3b-4c7a-9e21-0d5b8f3a7c41")
_ID_HASH = hashlib.sha1(_DREAMING_IDS.bytes, usedforsecurity=False)
#: A UUID5's variant digit (RFC 4122: the top two bits 10) from the hash's hex digit.
_VARIANT = {f"{d:x}": f"{(d & 0x3) | 0x8:x}" for d in range(16)}
_LPA_MAX_ITERATIONS = 20
_CHUNK = 65_536


@dataclass(frozen=True)
class SimilarityGraph:
    """Undirected weighted edges over ``n`` nodes, each pair once (``a < b``).

    Attributes:
        n: node count.
        a, b: int arrays of endpoints (``a[i] < b[i]``).
        weight: float array of cosine similarities in [0, 1].
    """

    n: int
    a: np.ndarray
    b: np.ndarray
    weight: np.ndarray

    @classmethod
    def from_pairs(
        cls, n: int, a: Sequence[int], b: Sequence[int], weight: Sequence[float]
    ) -> SimilarityGraph:
        """Normalise directed, possibly repeated pairs: self-pairs dropped, each unordered pair
        kept once with its highest weight."""
        lo = np.minimum(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
        hi = np.maximum(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
        w = np.asarray(weight, dtype=np.float32)
        keep = lo != hi
        lo, hi, w = lo[keep], hi[keep], w[keep]
        order = np.lexsort((-w, hi, lo))  # per pair, the highest weight first
        lo, hi, w = lo[order], hi[order], w[order]
        first = np.ones(len(lo), dtype=bool)
        first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        return cls(n, lo[first], hi[first], w[first])


@dataclass(frozen=True)
class Clustering:
    """The clusters of one pass.

    Attributes:
        clusters: member index lists, each sorted, ordered by first member.
        rejected_oversize: communities larger than ``max_size`` (no reflection).
        split_components: components above ``max_size`` that label propagation split.
    """

    clusters: list[list[int]]
    rejected_oversize: int
    split_components: int


def _components(graph: SimilarityGraph) -> list[list[int]]:
    parent = list(range(graph.n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for start in range(0, len(graph.a), _CHUNK):  # Python ints for a chunk at a time
        stop = start + _CHUNK
        for x, y in zip(graph.a[start:stop].tolist(), graph.b[start:stop].tolist(), strict=True):
            rx, ry = find(x), find(y)
            if rx != ry:
                parent[max(rx, ry)] = min(rx, ry)
    groups: dict[int, list[int]] = defaultdict(list)
    for node in range(graph.n):
        groups[find(node)].append(node)
    return [g for g in groups.values() if len(g) > 1]


@dataclass(frozen=True)
class _Adjacency:
    """The graph's adjacency in compressed sparse rows: node ``x``'s neighbours are
    ``other[start[x]:start[x + 1]]`` with weights ``weight[...]``, in the graph's pair order
    (flat arrays: no Python object per pair)."""

    start: np.ndarray
    other: np.ndarray
    weight: np.ndarray

    @classmethod
    def of(cls, graph: SimilarityGraph) -> _Adjacency:
        pairs = len(graph.a)
        node = np.concatenate([graph.a, graph.b])
        order = np.lexsort((np.tile(np.arange(pairs), 2), node))  # by node, then pair order
        start = np.zeros(graph.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(node, minlength=graph.n), out=start[1:])
        return cls(
            start,
            np.concatenate([graph.b, graph.a])[order],
            np.concatenate([graph.weight, graph.weight])[order],
        )

    def neighbours(self, x: int) -> zip[tuple[int, float]]:
        """``(neighbour, weight)`` of node ``x``, in pair order."""
        lo, hi = int(self.start[x]), int(self.start[x + 1])
        return zip(self.other[lo:hi].tolist(), self.weight[lo:hi].tolist(), strict=True)


def _label_propagation(nodes: list[int], adjacency: _Adjacency, seed: int) -> list[list[int]]:
    labels = {node: node for node in nodes}
    order = sorted(nodes)
    rng = random.Random(seed)
    for _ in range(_LPA_MAX_ITERATIONS):
        rng.shuffle(order)
        changed = False
        for node in order:
            totals: dict[int, float] = defaultdict(float)
            for other, w in adjacency.neighbours(node):
                totals[labels[other]] += w
            if not totals:
                continue
            best_weight = max(totals.values())
            best = min(label for label, w in totals.items() if w == best_weight)
            if best != labels[node]:
                labels[node], changed = best, True
        if not changed:
            break
    groups: dict[int, list[int]] = defaultdict(list)
    for node in nodes:
        groups[labels[node]].append(node)
    return list(groups.values())


def cluster(
    graph: SimilarityGraph, *, min_size: int, max_size: int | None, seed: int
) -> Clustering:
    """Bounded clusters of ``graph`` (see the module docstring).

    Args:
        graph: the pass's similarity graph.
        min_size: members; smaller groups are dropped.
        max_size: members; larger components are split, larger communities dropped; None = no
            bound.
        seed: label-propagation seed.
    """
    clusters: list[list[int]] = []
    rejected = split = 0
    adjacency: _Adjacency | None = None
    for component in _components(graph):
        groups = [component]
        if max_size is not None and len(component) > max_size:
            if adjacency is None:
                adjacency = _Adjacency.of(graph)
            groups = _label_propagation(component, adjacency, seed)
            split += 1
        for group in groups:
            if max_size is not None and len(group) > max_size:
                rejected += 1
            elif len(group) >= min_size:
                clusters.append(sorted(group))
    clusters.sort(key=lambda members: members[0])
    return Clustering(clusters, rejected, split)


class ClusterEdges:
    """The graph edges inside each cluster, grouped once so a batch of clusters can take its own
    (``(a, b, weight)`` with ``a < b``) without building every cluster's list up front."""

    def __init__(self, graph: SimilarityGraph, clusters: Sequence[Sequence[int]]) -> None:
        owner = np.full(graph.n, -1, dtype=np.int64)
        for index, members in enumerate(clusters):
            owner[np.asarray(members, dtype=np.int64)] = index
        same = (owner[graph.a] >= 0) & (owner[graph.a] == owner[graph.b])
        by_cluster = np.argsort(owner[graph.a][same], kind="stable")
        self._owner = owner[graph.a][same][by_cluster]
        self._a = graph.a[same][by_cluster]
        self._b = graph.b[same][by_cluster]
        self._w = graph.weight[same][by_cluster]

    def of(self, index: int) -> list[tuple[int, int, float]]:
        """The edges inside cluster ``index``."""
        lo, hi = np.searchsorted(self._owner, [index, index + 1])
        return list(
            zip(
                self._a[lo:hi].tolist(),
                self._b[lo:hi].tolist(),
                self._w[lo:hi].tolist(),
                strict=True,
            )
        )


def cluster_key(member_ids: Sequence[str]) -> str:
    """A cluster's identity: the first 16 hex digits of SHA-256 over its sorted member ids as
    JSON (the peer's ``cluster_hash``)."""
    return hashlib.sha256(json.dumps(sorted(member_ids)).encode()).hexdigest()[:16]


def dreaming_id(*parts: str) -> str:
    """A deterministic id (UUID5) for something dreaming writes, named by ``parts``: the same
    parts give the same id on every run, so a re-run finds what an earlier one made."""
    digest = _ID_HASH.copy()
    digest.update("/".join(parts).encode())
    h = digest.hexdigest()  # uuid.uuid5's SHA-1, formatted without a UUID object (3x faster)
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


def reflection_id(namespace: str, key: str) -> str:
    """The thought id of the reflection of cluster ``key`` in ``namespace``."""
    return dreaming_id("reflection", namespace, key)
