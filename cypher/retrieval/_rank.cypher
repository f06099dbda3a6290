// Fragment: Phases 4 (over the pool), 5 and 7: every candidate's signals and composite, in rank
// order. Input rows (retrieval/_activate_and_spread yields them): t (node), keyword, cosine,
// activated, reached_by, hops, arrivals (LIST of [from_id, via, activation passed on]), causal.
// - direct similarity: $vector_share * cosine + (1 - $vector_share) * keyword (keyword alone
//   without a question vector); activation: direct / the best activated one's (activated only);
// - with $spreading, over the pool's messages (conversation_id and position, not reached by the
//   causal walk): a CONVERSATION link from every other candidate within $window positions of
//   the same conversation (its direct similarity x $neighbour_weight x
//   $neighbour_decay^(distance - 1)) unless it arrived from there already, and the session
//   signal: the sum of the conversation's $session_top best direct similarities / $session_top
//   (a SESSION link for a memory only spreading reached); spread: the best activation any link
//   passes on, at most 1;
// - temporal (Phase 5) on $axis: 'access' decays 1 / (1 + age_days * $decay_rate), the age from
//   the last access, else from when it happened (valid_from, else created_at), to $now_s (P1 or
//   pinned: 1); 'cycle' exp(-$recency_rate * ($recency_cycle - updated_cycle)); 'transaction'
//   exp(-$recency_rate * seconds since updated_at, else created_at, to $recency_now_s); else 0.
//   With a named range ($range_start_s inclusive to $range_end_s exclusive, either open) a
//   memory that happened in it scores 1, another half its value;
// - relevance: (direct + $spread_gain * spread + $session_gain * session) / (1 + both gains);
//   importance: $priority_share * $priority_boost[priority] + (1 - $priority_share) *
//   confidence (an unknown priority as P3, a confidence outside [0, 1] as
//   $neutral_confidence); access frequency: ln(1 + access_count) / ln(1 + $access_saturation),
//   at most 1;
// - composite (Phase 7): the $weights-weighted sum of relevance, temporal, causal (at most 1),
//   importance and access frequency, times $outside_range_factor outside a named range.
// The formulas and constants are engrava_graph.retrieval.scoring's (the caller passes them);
// docs/retrieval.md describes each phase.
// params: $has_vector (BOOLEAN), $vector_share, $spreading (BOOLEAN), $window,
//         $neighbour_weight, $neighbour_decay, $session_top, $axis (STRING or null), $now_s,
//         $decay_rate, $recency_cycle, $recency_now_s, $recency_rate, $range_start_s,
//         $range_end_s (FLOATs or null), $spread_gain, $session_gain, $priority_boost (MAP),
//         $priority_share, $neutral_confidence, $access_saturation, $weights (MAP of the five
//         weights), $outside_range_factor
// yields: one row: nodes (LIST<NODE>), rows (LIST of retrieval/_signal_row lists) and scores
//         (LIST of [thought_id, composite, cosine, keyword]), all in rank order (composite
//         descending, ties by thought_id), and activated (INTEGER: how many were activated)
// Each property ranking reads is read once, in one pass over the node's properties (a map
// projection): every t.x walks the node's property chain, to its end for a missing one.
WITH t, keyword, cosine, activated, reached_by, hops, arrivals, causal,
     t {.thought_id, .conversation_id, .position, .valid_from, .created_at, .updated_at,
        .updated_cycle, .last_accessed_at, .priority, .confidence, .access_count, .pinned} AS f
WITH t, f, keyword, cosine, activated, reached_by, hops, arrivals, causal,
     CASE WHEN NOT $has_vector THEN keyword
          ELSE $vector_share * coalesce(cosine, 0.0) + (1.0 - $vector_share) * keyword END AS direct,
     CASE WHEN $spreading AND reached_by <> 'cause' AND f.position IS :: INTEGER
          THEN f.conversation_id END AS conversation
ORDER BY direct DESC
WITH conversation,
     collect({t: t, f: f, keyword: keyword, cosine: cosine, activated: activated,
              reached_by: reached_by, hops: hops, arrivals: arrivals, causal: causal,
              direct: direct}) AS members
UNWIND members AS m
WITH m, conversation,
     CASE WHEN conversation IS NULL THEN 0.0
          ELSE reduce(s = 0.0, x IN members[0..$session_top] | s + x.direct) / $session_top
     END AS session
ORDER BY conversation, m.f.position
// A position only in a conversation: one that is not an INTEGER (set by hand) is none, and is
// then never subtracted from another's.
WITH collect(m {.*, conversation: conversation,
                position: CASE WHEN conversation IS NOT NULL THEN m.f.position END,
                session: session}) AS pool
WITH pool, reduce(b = 0.0, c IN pool | CASE WHEN c.activated AND c.direct > b THEN c.direct
                                            ELSE b END) AS best
UNWIND range(0, size(pool) - 1) AS i
WITH pool, best, i, pool[i] AS c
// Sorted by conversation and position, a message's neighbours within $window positions lie
// within $window places of it.
WITH best, c, c.t AS t, c.f AS f,
     [j IN range(CASE WHEN i < $window THEN 0 ELSE i - $window END,
                 CASE WHEN i + $window >= size(pool) THEN size(pool) - 1 ELSE i + $window END)
      WHERE c.conversation IS NOT NULL AND pool[j].conversation = c.conversation
        AND pool[j].position <> c.position AND abs(pool[j].position - c.position) <= $window
        AND NOT [pool[j].f.thought_id, 'CONVERSATION'] IN [a IN c.arrivals | a[0..2]]
      | [pool[j].f.thought_id, 'CONVERSATION',
         pool[j].direct
           * ($neighbour_weight * $neighbour_decay ^ (abs(pool[j].position - c.position) - 1))]]
       AS neighbours
WITH best, c, t, f, neighbours,
     reduce(m = 0.0, a IN c.arrivals + neighbours | CASE WHEN a[2] > m THEN a[2] ELSE m END)
       AS reach,
     CASE WHEN f.valid_from IS :: ZONED DATETIME
          THEN f.valid_from.epochSeconds + f.valid_from.nanosecond / 1.0e9
          WHEN f.created_at IS :: ZONED DATETIME
          THEN f.created_at.epochSeconds + f.created_at.nanosecond / 1.0e9 END AS happened,
     CASE WHEN f.priority IS :: STRING AND f.priority IN keys($priority_boost)
          THEN f.priority ELSE 'P3' END AS priority
WITH c, t, f, neighbours, happened, priority,
     CASE WHEN reach > 1.0 THEN 1.0 ELSE reach END AS spread,
     CASE WHEN NOT c.activated THEN 0.0 WHEN best > 0.0 THEN c.direct / best ELSE 1.0 END
       AS activation,
     CASE WHEN $range_start_s IS NULL AND $range_end_s IS NULL THEN null
          ELSE happened IS NOT NULL AND ($range_start_s IS NULL OR happened >= $range_start_s)
               AND ($range_end_s IS NULL OR happened < $range_end_s) END AS in_range,
     CASE
       WHEN $axis = 'access' AND $now_s IS NOT NULL THEN
         CASE WHEN f.pinned = true OR priority = 'P1' THEN 1.0
              ELSE [since IN [coalesce(
                      CASE WHEN f.last_accessed_at IS :: ZONED DATETIME
                           THEN f.last_accessed_at.epochSeconds
                                + f.last_accessed_at.nanosecond / 1.0e9 END, happened)]
                    | 1.0 / (1.0 + CASE WHEN since IS NULL OR $now_s < since THEN 0.0
                                        ELSE ($now_s - since) / 86400.0 END * $decay_rate)][0]
         END
       WHEN $axis = 'cycle' THEN
         exp(-$recency_rate * CASE WHEN f.updated_cycle IS :: INTEGER
                                        AND f.updated_cycle < $recency_cycle
                                   THEN $recency_cycle - f.updated_cycle
                                   WHEN f.updated_cycle IS :: INTEGER THEN 0
                                   ELSE CASE WHEN $recency_cycle > 0 THEN $recency_cycle
                                             ELSE 0 END END)
       WHEN $axis = 'transaction' THEN
         [stamp IN [CASE WHEN f.updated_at IS :: ZONED DATETIME
                         THEN f.updated_at.epochSeconds + f.updated_at.nanosecond / 1.0e9
                         WHEN f.created_at IS :: ZONED DATETIME
                         THEN f.created_at.epochSeconds + f.created_at.nanosecond / 1.0e9 END]
          | CASE WHEN stamp IS NULL OR $recency_now_s IS NULL THEN 0.0
                 WHEN $recency_now_s < stamp THEN 1.0
                 ELSE exp(-$recency_rate * ($recency_now_s - stamp)) END][0]
       ELSE 0.0 END AS decayed
WITH c, t, f, neighbours, spread, activation, in_range, priority,
     CASE WHEN in_range IS NULL THEN decayed WHEN in_range THEN 1.0 ELSE 0.5 * decayed END
       AS temporal,
     CASE WHEN c.session > 0.0 AND c.reached_by = 'spread'
          THEN [[c.conversation, 'SESSION', c.session]] ELSE [] END AS session_link
WITH c, t, f, spread, activation, in_range, temporal, neighbours + session_link AS links,
     (c.direct + $spread_gain * spread + $session_gain * c.session)
       / (1.0 + $spread_gain + $session_gain) AS relevance,
     $priority_share * $priority_boost[priority]
       + (1.0 - $priority_share)
         * CASE WHEN (f.confidence IS :: FLOAT OR f.confidence IS :: INTEGER)
                     AND 0.0 <= f.confidence <= 1.0
                THEN f.confidence ELSE $neutral_confidence END AS importance,
     [n IN [CASE WHEN f.access_count IS :: INTEGER AND f.access_count > 0
                 THEN f.access_count ELSE 0 END]
      | CASE WHEN log(1.0 + n) / log(1.0 + $access_saturation) > 1.0 THEN 1.0
             ELSE log(1.0 + n) / log(1.0 + $access_saturation) END][0] AS access_frequency,
     CASE WHEN c.causal > 1.0 THEN 1.0 ELSE c.causal END AS causal
WITH c, t, f, spread, activation, in_range, temporal, links, relevance, importance,
     access_frequency, causal,
     [score IN [$weights.similarity * relevance + $weights.temporal * temporal
                + $weights.causal * causal + $weights.importance * importance
                + $weights.access_frequency * access_frequency]
      | CASE WHEN in_range = false THEN score * $outside_range_factor ELSE score END][0]
       AS composite
ORDER BY composite DESC, f.thought_id
WITH collect(t) AS nodes, collect({{> retrieval/_signal_row}}) AS rows,
     collect([f.thought_id, composite, c.cosine, c.keyword]) AS scores,
     count(CASE WHEN c.activated THEN 1 END) AS activated
