// Fragment: Phase 8, near-duplicates, walking the ranking (retrieval/_rank's nodes, rows, scores
// and activated), and what the statement returns. A candidate whose cosine to a kept,
// higher-ranked one exceeds $duplicate_threshold is dropped (for the highest-ranked such one), so
// each candidate is compared with the kept ones only (retrieval/_comparable_embedding,
// retrieval/_near_duplicate: on Neo4j 2026.x as VECTOR values); a memory without an embedding is
// never a near-duplicate. The walk stops at the first of the boundaries $walk_first, 2
// $walk_first, 4 $walk_first, ... and the ranking's length where the kept ones settle the first
// $need results under the reflection cap (at most $reflection_cap REFLECTIONs among the first
// $reflection_window): at least $need kept, and that window filled by the non-reflections and up
// to $reflection_cap reflections, after which nothing further down can move a result before it.
// Stopping at fixed boundaries, not at the first settled step, keeps how many candidates compete
// in Phase 9 independent of where duplicates sit; only the walked candidates' embeddings are
// read. The kept ones' embeddings are held as a list parallel to their ids (a list of maps
// holding vectors cost Cypher eight times as much).
// params: $duplicate_threshold (FLOAT cosine), $need, $walk_first, $reflection_cap,
//         $reflection_window (INTEGERs), $trace (BOOLEAN: return every candidate)
// returns: one row: ranked (INTEGER, candidates ranked), activated (INTEGER, of them activated),
//          scanned (INTEGER, walked), dropped (LIST<MAP {thought_id, twin}>: twin is the kept one
//          it duplicates), kept (LIST of [signal row (retrieval/_signal_row), ranking fields
//          (retrieval/_ranking_fields), display fields (retrieval/_display_fields)], the kept
//          ones in rank order), rest (LIST of [thought_id, composite, cosine, keyword], the
//          unwalked ones in rank order), trace (with $trace, every candidate as kept has them,
//          in rank order; else [])
WITH nodes, rows, scores, activated,
     [x IN range(0, 30) WHERE $walk_first * 2 ^ x < size(nodes) | toInteger($walk_first * 2 ^ x)]
     + [size(nodes)] AS boundaries
WITH nodes, rows, scores, activated,
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
    step {.*, scanned: i + 1,
          settled: i + 1 IN boundaries AND size(step.kept) >= $need
                   AND size(step.kept) - step.reflections
                       + CASE WHEN step.reflections < $reflection_cap THEN step.reflections
                              ELSE $reflection_cap END >= $reflection_window}][0]
  END) AS walk
RETURN size(nodes) AS ranked,
       activated,
       walk.scanned AS scanned, walk.dropped AS dropped,
       [i IN walk.at | [t IN [nodes[i]] | [rows[i], {{> retrieval/_ranking_fields}},
                                            {{> retrieval/_display_fields}}]][0]] AS kept,
       scores[walk.scanned..] AS rest,
       CASE WHEN $trace
            THEN [i IN range(0, size(nodes) - 1)
                  | [t IN [nodes[i]] | [rows[i], {{> retrieval/_ranking_fields}},
                                        {{> retrieval/_display_fields}}]][0]]
            ELSE [] END AS trace
