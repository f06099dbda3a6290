// Fragment: node `t` has not expired at $now (or $include_expired is true).
// params: $include_expired (BOOLEAN), $now (DATETIME)
($include_expired OR t.expires_at IS NULL OR t.expires_at > $now)
