"""The service's routes: ``/v1`` (retrieval, thoughts, conversations, edges, dream) and the health
probes."""
