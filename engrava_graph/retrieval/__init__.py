"""The retrieval cycle: encode, route, phases, orchestrator, explain."""
