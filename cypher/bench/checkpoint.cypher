// Flush the transaction log into the store files (benchmarks measure the store's size on disk
// after it: before a checkpoint, recent writes live only in the log).
// params: none
// returns: success (BOOLEAN), message (STRING)
CALL db.checkpoint() YIELD success, message
RETURN success, message
