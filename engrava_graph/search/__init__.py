"""Search over a namespace: the keyword and vector arms (:mod:`.arms`), the keyword analysis and
Lucene queries (:mod:`.lucene`), namespace-local BM25 (:mod:`.bm25`) and the hybrid fusion of
their signals (:mod:`.fusion`).

Used by the store's ``search_*``/``recall`` methods, the retrieval cycle's activation phase and
dreaming's neighbour search; it imports only ``graph`` and ``model``.
"""
