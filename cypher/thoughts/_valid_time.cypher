// Fragment: node `t` passes the bi-temporal predicate $vt_kind (null = no predicate).
// valid_at/valid_now: valid at $vt_start; valid_within: overlaps [$vt_start, $vt_end);
// valid_between: contained in [$vt_start, $vt_end] with both bounds set.
// params: $vt_kind (STRING or null), $vt_start (DATETIME), $vt_end (DATETIME)
($vt_kind IS NULL
 OR ($vt_kind IN ['valid_at', 'valid_now']
     AND (t.valid_from IS NULL OR t.valid_from <= $vt_start)
     AND (t.valid_until IS NULL OR t.valid_until > $vt_start))
 OR ($vt_kind = 'valid_within'
     AND (t.valid_from IS NULL OR t.valid_from < $vt_end)
     AND (t.valid_until IS NULL OR t.valid_until > $vt_start))
 OR ($vt_kind = 'valid_between'
     AND t.valid_from IS NOT NULL AND t.valid_until IS NOT NULL
     AND t.valid_from >= $vt_start AND t.valid_until <= $vt_end))
