"""The service's routes: ``/v1`` (retrieval, thoughts, edges, dream) and the health probes."""
