// Fragment: node `t` may appear in ranked retrieval for this namespace: not archived (unless
// $include_archived), not a retired reflection (never), not expired at $now, and passing
// the metadata predicates.
// params: $namespace, $include_archived, $now, $meta_filters
t.namespace = $namespace
AND ($include_archived OR t.lifecycle_status <> 'ARCHIVED')
AND NOT coalesce(t.retired, false)
AND (t.expires_at IS NULL OR t.expires_at > $now)
AND {{> thoughts/_meta_filter}}
