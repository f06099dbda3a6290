// Block until every index is ONLINE (or the timeout passes).
// params: $timeout_seconds (INTEGER)
CALL db.awaitIndexes($timeout_seconds)
