// Fragment: what a result shows of candidate `t` beyond its ranking fields, as one list:
// thought_id, essence, metadata_json (engrava_graph.retrieval.candidates.DISPLAY_FIELDS).
[t.thought_id, t.essence, t.metadata_json]
