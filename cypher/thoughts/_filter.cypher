// Fragment: the WHERE conditions of list_thoughts / count_thoughts over node `t`.
// params: $priority, $lifecycle_status, $thought_type, $min_cycle, $max_cycle, $visibility,
//         $exclude_visibility, $include_expired, $include_archived, $now, $meta_filters,
//         $vt_kind, $vt_start, $vt_end
($priority IS NULL OR t.priority = $priority)
AND ($lifecycle_status IS NULL OR t.lifecycle_status = $lifecycle_status)
AND ($thought_type IS NULL OR t.thought_type = $thought_type)
AND ($min_cycle IS NULL OR t.updated_cycle >= $min_cycle)
AND ($max_cycle IS NULL OR t.updated_cycle <= $max_cycle)
AND ($visibility IS NULL OR t.visibility = $visibility)
AND ($exclude_visibility IS NULL OR t.visibility <> $exclude_visibility)
AND ($include_archived OR t.lifecycle_status <> 'ARCHIVED')
AND {{> thoughts/_not_expired}}
AND {{> thoughts/_meta_filter}}
AND {{> thoughts/_valid_time}}
