// Phase 8, near-duplicates, walking the ranking, and the results' texts: $element_ids and
// $thought_ids in rank order (best first, the whole ranking; the walk reads no further than it
// needs). A candidate whose cosine to a kept, higher-ranked one exceeds $duplicate_threshold is
// dropped (for the highest-ranked such one); so each candidate is compared with the kept ones
// only. The walk stops at the first of $boundaries (walked counts) where the kept ones settle the
// first $need results under the reflection cap (at most $reflection_cap REFLECTIONs among the
// first $reflection_window): at least $need kept, and that window filled by the non-reflections
// and up to $reflection_cap reflections, after which nothing further down can move a result before
// it. (Stopping at fixed boundaries, not at the first settled step, keeps how many candidates
// compete in Phase 9 independent of where duplicates sit.) Each candidate is found by its element
// id (four times cheaper than the index seek by namespace and id) and must still be that thought
// of this namespace; a missing one was deleted since it was ranked. No vector leaves the server; a
// memory without an embedding is never a near-duplicate; only the walked candidates' embeddings
// are read (retrieval/_comparable_embedding, retrieval/_near_duplicate: on Neo4j 2026.x as VECTOR
// values). The kept ones' embeddings are held as a list parallel to their ids (a list of maps
// holding vectors cost Cypher eight times as much). The kept ones come with their texts
// (retrieval/_display_fields): the results are among them, and the ranking read no text.
// params: $namespace, $element_ids, $thought_ids (LIST<STRING>s in rank order, aligned),
//         $duplicate_threshold (FLOAT cosine), $need, $reflection_cap, $reflection_window
//         (INTEGERs), $boundaries (LIST<INTEGER>: walked counts at which the walk may stop)
// returns: one row: kept (LIST<STRING>, in rank order), dropped (LIST<MAP {thought_id, twin}>:
//          twin is the kept one it duplicates), scanned (INTEGER: how many of $thought_ids were
//          walked, a missing one (deleted) included; those after it are unchecked), settled
//          (BOOLEAN), described (LIST of retrieval/_display_fields lists, of the kept ones in
//          rank order)
UNWIND range(0, size($element_ids) - 1) AS rank
MATCH (t:Thought)
WHERE elementId(t) = $element_ids[rank] AND t.thought_id = $thought_ids[rank]
  AND t.namespace = $namespace
WITH rank, t ORDER BY rank
// Nodes, not their embeddings: a candidate's embedding is read when the walk reaches it.
WITH collect(rank) AS ranks, collect(t) AS nodes
WITH ranks, nodes,
     reduce(s = {kept: [], at: [], vectors: [], reflections: 0, dropped: [], scanned: 0,
                 settled: false},
            i IN range(0, size(nodes) - 1) |
  CASE WHEN s.settled THEN s
  ELSE [step IN [[e IN [n IN [nodes[i]] | {{> retrieval/_comparable_embedding}}] |
                  [twin IN [head([k IN range(0, size(s.kept) - 1)
                                  WHERE {{> retrieval/_near_duplicate}} | s.kept[k]])] |
                   CASE WHEN twin IS NOT NULL
                   THEN {kept: s.kept, at: s.at, vectors: s.vectors, reflections: s.reflections,
                         dropped: s.dropped + [{thought_id: nodes[i].thought_id, twin: twin}]}
                   ELSE {kept: s.kept + [nodes[i].thought_id], at: s.at + [i],
                         vectors: s.vectors + [e],
                         reflections: s.reflections
                                      + CASE WHEN nodes[i].thought_type = 'REFLECTION' THEN 1
                                             ELSE 0 END,
                         dropped: s.dropped}
                   END][0]][0]] |
    step {.*, scanned: ranks[i] + 1,
          settled: ranks[i] + 1 IN $boundaries AND size(step.kept) >= $need
                   AND size(step.kept) - step.reflections
                       + CASE WHEN step.reflections < $reflection_cap THEN step.reflections
                              ELSE $reflection_cap END >= $reflection_window}][0]
  END) AS walk
RETURN walk.kept AS kept, walk.dropped AS dropped, walk.scanned AS scanned,
       walk.settled AS settled,
       [i IN walk.at | [t IN [nodes[i]] | {{> retrieval/_display_fields}}][0]] AS described
