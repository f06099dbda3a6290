// Fragment: node `t` passes every metadata predicate (AND of EQ/IN over flattened meta.* keys).
// params: $meta_filters (LIST OF MAP {key: STRING, values: LIST, match_null: BOOLEAN})
ALL(f IN $meta_filters WHERE t[f.key] IN f.values OR (f.match_null AND t[f.key] IS NULL))
