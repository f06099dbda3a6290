// The namespace's most recently completed DreamRun that recorded a fingerprint (read before a
// pass opens its own run, which may be the same node).
// params: $namespace
// returns: run_id, fingerprint (STRING), clusters, clusters_covered, clusters_rejected
//          (INTEGER or null)
MATCH (d:DreamRun {namespace: $namespace})
WHERE d.status = 'completed' AND d.fingerprint IS NOT NULL
RETURN d.run_id AS run_id, d.fingerprint AS fingerprint, d.clusters AS clusters,
       d.clusters_covered AS clusters_covered, d.clusters_rejected AS clusters_rejected
ORDER BY d.completed_at DESC, d.run_id
LIMIT 1
