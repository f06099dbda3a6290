"""The Python client of the engrava-graph REST service (``engrava-graph serve``).

:class:`Client` (blocking) and :class:`AsyncClient` (asyncio) make the same calls: ``retrieve``
and ``explain`` (the retrieval cycle), ``remember``, ``create_thought``, ``get_thought``,
``update_thought``, ``delete_thought``, ``restore_thought``, ``list_thoughts``, ``bulk_store``,
``create_edge``, ``get_edge``, ``get_edges``, ``delete_edge``, ``dream``, ``get_dream``,
``wait_for_dream`` and ``health``. They return the library's models and raise its typed errors.
A result's ``confidence`` is the calibrated probability that the memory answers the question
(docs/retrieval.md): on the spec example's memories, "deploy schedule" gives the deployment
window about 0.8, the two other deploy notes about 0.35 and unrelated ones below 0.1
(tests/integration/test_client_spec_examples.py runs it)::

    from engrava_graph.client import Client

    client = Client("http://127.0.0.1:8000", api_key="…", namespace="agent-1")
    results = client.retrieve(query="deploy schedule", min_confidence=0.3)
    for r in results:
        print(f"{r.confidence:.0%} — {r.text}")
"""

from engrava_graph.client._clients import AsyncClient, Client

__all__ = ["AsyncClient", "Client"]
