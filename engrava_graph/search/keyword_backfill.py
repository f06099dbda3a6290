"""The migration that gives thoughts written before schema version 4 their keyword terms."""

from __future__ import annotations

from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.search.bm25 import keyword_properties

_MISSING = cypher("schema/keyword_missing")
_FILL = cypher("schema/keyword_fill")
#: Thoughts analysed and written per transaction.
BATCH_SIZE = 2_000


async def backfill_keyword_terms(executor: GraphExecutor, *, batch_size: int = BATCH_SIZE) -> int:
    """Store ``keyword_terms`` and ``keyword_length``
    (:func:`~engrava_graph.search.bm25.keyword_properties`) on every thought of the database
    that has none, ``batch_size`` per transaction. Until it has run, the keyword arm analyses
    such a thought's text on every query instead (same scores, more time).

    A thought whose text changed between the read and the write of its batch keeps no terms
    and is taken again by the next batch, so nothing stale is written; a batch of which nothing
    could be written ends the run (what is left is analysed at query time).

    Returns:
        How many thoughts were filled (0 when every thought has its terms: one index-free scan
        of the thoughts, about a second per 1,000,000).
    """
    filled = 0
    while True:
        rows = await executor.write(_MISSING, limit=batch_size)
        if not rows:
            return filled
        batch = [{**row, **keyword_properties(row["essence"], row["content"])} for row in rows]
        written = int((await executor.write(_FILL, rows=batch))[0]["filled"])
        if not written:
            return filled
        filled += written
