// The namespace's DreamRuns, newest first, with their parameters and counts.
// params: $namespace, $limit (INTEGER)
// returns: run (MAP: every DreamRun property), produced (INTEGER: reflections linked by PRODUCED)
MATCH (d:DreamRun {namespace: $namespace})
RETURN d {.*} AS run, COUNT { (d)-[:PRODUCED]->(:Thought) } AS produced
ORDER BY d.last_started_at DESC, d.run_id
LIMIT $limit
