// The Neo4j server's identity (kernel name, versions, edition), for diagnostics and benchmark
// reports (benchmarks/bench_store.py prints it next to the machine description).
// params: none
// returns: name (STRING), versions (LIST<STRING>), edition (STRING)
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions, edition
