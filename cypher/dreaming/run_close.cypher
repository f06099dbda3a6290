// Close a dreaming pass's DreamRun: its final status, this pass's counts, and the running totals
// of what its passes created.
// params: $namespace, $run_id, $status ('completed' | 'failed'), $counts (MAP of this pass's
//         counts and seconds), $reflections_created, $edges_created (INTEGER), $now (DATETIME)
// returns: run_id
MATCH (d:DreamRun {namespace: $namespace, run_id: $run_id})
SET d += $counts, d.status = $status, d.completed_at = $now,
    d.reflections_created = d.reflections_created + $reflections_created,
    d.edges_created = d.edges_created + $edges_created
RETURN d.run_id AS run_id
