"""The thought-graph model: records, enums, errors, filters, time, cycles. No I/O."""

from engrava_graph.model.cycles import (
    CallableCycleProvider,
    CycleProvider,
    MaxCycleProvider,
    StaticCycleProvider,
)
from engrava_graph.model.enums import (
    EdgeDirection,
    EdgeType,
    KnowledgeSource,
    LifecycleStatus,
    Priority,
    ThoughtType,
    ThoughtVisibility,
)
from engrava_graph.model.errors import (
    CycleProviderError,
    CycleRequiredError,
    DuplicateEdgeError,
    DuplicateThoughtError,
    EdgeNotFoundError,
    EmbeddingDimensionMismatchError,
    EmbeddingError,
    EngravaGraphError,
    HygienePolicyMissingError,
    InvalidFilterError,
    InvalidNamespaceError,
    InvalidRecencyArgumentError,
    InvalidTransitionError,
    Neo4jUnavailableError,
    ReadOnlyViolationError,
    RecencyModeConflictError,
    ReferentialIntegrityError,
    SchemaVersionError,
    StaleDataError,
    ThoughtNotFoundError,
    ValidationFailedError,
)
from engrava_graph.model.metadata import FieldOp, FieldPredicate, MetadataFilter
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from engrava_graph.model.search import HybridSearchResult
from engrava_graph.model.temporal import ValidTimeFilter

__all__ = [
    "CallableCycleProvider", "CycleProvider", "CycleProviderError", "CycleRequiredError",
    "DuplicateEdgeError", "DuplicateThoughtError", "EdgeDirection", "EdgeNotFoundError",
    "EdgeRecord", "EdgeType", "EmbeddingDimensionMismatchError", "EmbeddingError",
    "EngravaGraphError", "FieldOp", "FieldPredicate", "HybridSearchResult",
    "HygienePolicyMissingError", "InvalidFilterError", "InvalidNamespaceError",
    "InvalidRecencyArgumentError", "InvalidTransitionError", "KnowledgeSource", "LifecycleStatus",
    "MaxCycleProvider", "MetadataFilter", "Neo4jUnavailableError", "Priority",
    "ReadOnlyViolationError", "RecencyModeConflictError", "ReferentialIntegrityError",
    "SchemaVersionError", "StaleDataError", "StaticCycleProvider", "ThoughtNotFoundError",
    "ThoughtRecord", "ThoughtType", "ThoughtVisibility", "ValidTimeFilter", "ValidationFailedError",
]
