// Readiness probe: one round trip that needs a working, authenticated database.
// params: none
// returns: ok (INTEGER 1)
RETURN 1 AS ok
