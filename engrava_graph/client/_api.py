"""Every call of the REST API, written once for ``Client`` and ``AsyncClient``.

Each method builds and validates its request locally (a bad argument raises
:class:`ValidationFailedError` before anything is sent), sends it through
:meth:`Transport.send` and returns the library's own models: :class:`RetrievalResponse`,
:class:`Explanation`, :class:`ThoughtRecord`, :class:`EdgeRecord`, and the service's
:class:`DreamJob`, :class:`BulkResult` and :class:`Health` (``engrava_graph.wire``, plain pydantic).

The calls are written per area (:mod:`._retrieval_calls`, :mod:`._thought_calls`,
:mod:`._edge_calls`, :mod:`._dream_calls`; the transport and ``health`` in :mod:`._base`) and
composed here into one class.
"""

from engrava_graph.client._dream_calls import DreamCalls
from engrava_graph.client._edge_calls import EdgeCalls
from engrava_graph.client._retrieval_calls import RetrievalCalls
from engrava_graph.client._thought_calls import ThoughtCalls


class ClientApi(RetrievalCalls, ThoughtCalls, EdgeCalls, DreamCalls):
    """The calls of the REST API (``/v1``), shared by ``Client`` and ``AsyncClient``.

    Args:
        base_url: the service's root URL, e.g. ``http://127.0.0.1:8000``.
        api_key: a key the service is configured with (``ENGRAVA_API_KEYS``); None for a
            service run with ``--insecure-dev``.
        namespace: the namespace every call works in (``X-Namespace``); writing a thought
            creates it.
        timeout: seconds for each of connect, read, write and pool wait of one request; a
            batch (``add_messages``, ``bulk_store``) may read 10 ms longer per record.
        max_retries: retries of a 503 or a transport failure after the first attempt.
        max_retry_after: the longest ``Retry-After`` the client honours, seconds.
        transport: an ``httpx`` transport to send through (tests, proxies); default: httpx's.

    Raises:
        ValidationFailedError: a base URL that is not http(s), or a negative number.
        InvalidNamespaceError: a malformed namespace.
    """
