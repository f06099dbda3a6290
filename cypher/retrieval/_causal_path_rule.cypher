// Fragment (a predicate on a path p from a seed, in the scope of `direction`): every step of p
// goes the same way, towards causes ('cause': CAUSED_BY forwards or LEADS_TO backwards) or
// towards effects ('effect': the opposite), and every node of p is a live thought of the
// namespace (not ARCHIVED, not retired).
// params: $namespace
all(i IN range(0, length(p) - 1) WHERE
    (type(relationships(p)[i]) = 'CAUSED_BY') =
    ((startNode(relationships(p)[i]) = nodes(p)[i]) = (direction = 'cause')))
AND all(n IN nodes(p) WHERE n.namespace = $namespace AND n.lifecycle_status <> 'ARCHIVED'
        AND NOT coalesce(n.retired, false))
