// Range index on the namespace alone, for one label (slot label: NodeLabel): the composite
// indexes are not used for a namespace-only match (exact vector search, counts, namespace
// deletion, the query-less fallback).
// params: none
CREATE INDEX namespace_{{label}} IF NOT EXISTS FOR (x:{{label}}) ON (x.namespace)
