"""Embedding providers: the protocol and the offline sentence-transformers default."""

from engrava_graph.embeddings.base import (
    EmbeddingProvider,
    checked_vectors,
    embed_off_loop,
    leaving_interpreter,
)
from engrava_graph.embeddings.sentence_transformer import SentenceTransformerProvider

__all__ = [
    "EmbeddingProvider",
    "SentenceTransformerProvider",
    "checked_vectors",
    "embed_off_loop",
    "leaving_interpreter",
]
