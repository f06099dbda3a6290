"""The 000 retrieval cycle: encode, route, phases, orchestrator, explain."""
