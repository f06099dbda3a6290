// Fragment: node `t` may appear in ranked retrieval for this namespace: not archived (unless
// $include_archived), not a retired reflection (never), not expired at $now, and passing
// the metadata predicates. The lifecycle properties are read in one pass (a map projection):
// `retired` and `expires_at` are missing on most thoughts, and each missing t.x walks the whole
// property chain. The namespace stays a plain predicate, for the planner's index choice.
// params: $namespace, $include_archived, $now, $meta_filters
t.namespace = $namespace
AND [r IN [t {.lifecycle_status, .retired, .expires_at}]
     | ($include_archived OR r.lifecycle_status <> 'ARCHIVED') AND NOT coalesce(r.retired, false)
       AND (r.expires_at IS NULL OR r.expires_at > $now)][0]
AND {{> thoughts/_meta_filter}}
