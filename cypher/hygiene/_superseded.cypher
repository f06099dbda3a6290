// Fragment: node `t` is superseded in world time: its valid_until is at or before $now (and the
// policy archives superseded thoughts).
// params: $archive_superseded (BOOLEAN), $now (DATETIME)
$archive_superseded AND t.valid_until IS NOT NULL AND t.valid_until <= $now
