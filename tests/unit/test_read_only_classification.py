"""Every public method of the store is classified for :class:`ReadOnlyEngrava`: a read it
delegates, a write (marked ``@writes``) it refuses, or a helper it does not offer."""

from __future__ import annotations

import inspect

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.read_only import READ_METHODS, WRITE_METHODS

READS = {
    "get_thought",
    "get_thoughts",
    "list_thoughts",
    "list_page",
    "recent_thoughts",
    "recent_page",
    "count_thoughts",
    "get_embedding",
    "get_embeddings",
    "max_cycle",
    "get_edge",
    "get_edges",
    "list_edges",
    "search_fts",
    "search_similar",
    "search_hybrid",
    "recall",
    "retrieve",
    "explain",
    "search_reflections_only",
    "namespace_exists",
    "namespace_annotations",
    "embed_query",
    "embed_queries",
}
WRITES = {
    "create_thought",
    "bulk_store",
    "reembed",
    "add_messages",
    "remember",
    "update_thought",
    "replace_older",
    "delete_thought",
    "restore_thought",
    "record_access",
    "flush_access_buffer",
    "create_edge",
    "bulk_create_edges",
    "update_edge",
    "delete_edge",
    "ensure_schema",
    "ensure_namespace",
    "annotate_namespace",
    "delete_namespace",
    "consolidate",
    "run_hygiene",
    "close",
}
NOT_OFFERED = {
    "from_uri",
    "for_namespace",
    "retrievable_scope",
    "suppress_access_tracking",
    "resume_access_tracking",
}


def test_the_writes_are_exactly_the_methods_marked_writes() -> None:
    assert WRITE_METHODS == WRITES


def test_the_reads_are_the_other_public_coroutine_methods() -> None:
    assert READ_METHODS == READS


def test_every_public_method_of_the_store_is_classified() -> None:
    public = {
        name
        for name, _ in inspect.getmembers(Neo4jEngravaCore, callable)
        if not name.startswith("_")
    }
    assert public == READS | WRITES | NOT_OFFERED
