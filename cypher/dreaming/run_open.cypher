// Open a dreaming pass's DreamRun (or resume it: same namespace, cycle and parameters give the
// same run_id) and mark every other run of the namespace still 'running' as 'interrupted',
// finished by this one (their clusters are re-found and completed by this pass).
// params: $namespace, $run_id, $current_cycle (INTEGER, cycles), $parameters (STRING: the
//         config as JSON), $settings (MAP of scalar parameters), $now (DATETIME)
// returns: previous (STRING status before this pass, null when new), interrupted (LIST<STRING>)
MERGE (d:DreamRun {namespace: $namespace, run_id: $run_id})
ON CREATE SET d += $settings, d.current_cycle = $current_cycle, d.parameters = $parameters,
              d.started_at = $now, d.passes = 0, d.reflections_created = 0, d.edges_created = 0
WITH d, d.status AS previous
SET d.status = 'running', d.passes = d.passes + 1, d.last_started_at = $now
WITH d, previous
OPTIONAL MATCH (other:DreamRun {namespace: $namespace, status: 'running'})
WHERE other <> d
SET other.status = 'interrupted', other.finished_by = $run_id, other.interrupted_at = $now
RETURN previous, [id IN collect(other.run_id) WHERE id IS NOT NULL] AS interrupted
