// Fragment: one candidate's signals as one list (inside retrieval/_rank, where c, f and the
// signals are bound), in the order of engrava_graph.retrieval.candidates.SIGNAL_ROW:
//   thought_id, reached_by, hops, cosine (or null), keyword, direct similarity, activation,
//   spread, session, relevance, temporal, in_range (BOOLEAN or null), causal, importance,
//   access_frequency, composite, arrivals (from spreading: [from_id, via, activation]), links
//   (from the pool: CONVERSATION and SESSION, the same shape)
// params: none
[f.thought_id, c.reached_by, c.hops, c.cosine, c.keyword, c.direct, activation, spread,
 c.session, relevance, temporal, in_range, causal, importance, access_frequency, composite,
 c.arrivals, links]
