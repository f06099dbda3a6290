"""The error hierarchy of engrava-graph.

One root, :class:`EngravaGraphError`; every error carries its context as attributes and a message
that says what to do next. Errors that pydantic validators may raise also subclass ``ValueError``.
Names follow the peer package ``engrava`` where it has the same error. Each class has one HTTP
status and machine code in ``engrava_graph/model/error_codes.py``.
"""

from __future__ import annotations

import collections.abc
import difflib
import math
import types
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

_BOUND_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})


def _finite(value: Any) -> bool:
    """Whether ``value`` (a number, or the text a command line gave) is not NaN or infinite."""
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return True  # not a number at all: the bound's own message applies


def validation_message(error: Mapping[str, Any]) -> str:
    """The message of one entry of pydantic's ``ValidationError.errors()``, without the
    ``"Value error, "`` that pydantic puts before a validator's own ``ValueError`` text (which
    is written to be shown as it is). A bound that NaN or infinity failed asks for a finite
    number (pydantic would say "less than or equal to 1" of NaN).

    Examples:
        >>> validation_message({"msg": "Value error, expected an ISO-8601 instant"})
        'expected an ISO-8601 instant'
        >>> validation_message({"type": "less_than_equal", "input": float("nan"),
        ...                     "msg": "Input should be less than or equal to 1"})
        'Input should be a finite number, not nan'
    """
    if error.get("type") in _BOUND_ERRORS and not _finite(error.get("input")):
        return f"Input should be a finite number, not {error.get('input')}"
    return str(error.get("msg", "invalid")).removeprefix("Value error, ")


_SEQUENCES = (list, tuple, set, frozenset, collections.abc.Sequence)
_MAPPINGS = (dict, collections.abc.Mapping)


def fields_at(annotation: Any, path: Sequence[str | int] = ()) -> list[str] | None:
    """The field names (aliases where set) of the model found at ``path`` in a value of type
    ``annotation``, sorted; None when no model is there. ``path`` is a pydantic ``loc`` without
    its last part: field names, list indices, dict keys.

    Examples:
        >>> from engrava_graph.wire import BulkThoughts
        >>> fields_at(BulkThoughts), fields_at(BulkThoughts, ("thoughts", 3))[:2]
        (['embeddings', 'thoughts'], ['access_count', 'archived_at'])
        >>> fields_at(BulkThoughts, ("thoughts",)) is None  # a list, not a model
        True
    """
    origin = get_origin(annotation)
    if origin is Annotated:
        return fields_at(get_args(annotation)[0], path)
    if origin in (Union, types.UnionType):
        arms = (arm for arm in get_args(annotation) if arm is not type(None))
        return next((f for arm in arms if (f := fields_at(arm, path)) is not None), None)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = annotation.model_fields
        if not path:
            return sorted(field.alias or name for name, field in fields.items())
        named = {field.alias or name: field for name, field in fields.items()}
        field = named.get(str(path[0]))
        return None if field is None else fields_at(field.annotation, path[1:])
    args = get_args(annotation)
    if path and origin in _SEQUENCES and args:
        return fields_at(args[0], path[1:])
    if path and origin in _MAPPINGS and len(args) == 2:
        return fields_at(args[1], path[1:])
    return None


def unknown_name_message(name: str, known: Iterable[str], *, kind: str, owner: str = "it") -> str:
    """Why ``name`` is refused where only ``known`` are taken, with the closest known name
    when one is close (a typo), e.g. ``"unknown field (did you mean 'source'?); it takes
    content, essence, source"``.

    Args:
        name: the name given.
        known: the names taken there.
        kind: what the names are (``"field"``, ``"argument"``, ``"query parameter"``).
        owner: who takes them (``"it"``, a tool's name).
    """
    names = sorted(known)
    close = difflib.get_close_matches(name, names, n=1)
    guess = f" (did you mean {close[0]!r}?)" if close else ""
    takes = f"{owner} takes {', '.join(names)}" if names else f"{owner} takes no {kind}s"
    return f"unknown {kind}{guess}; {takes}"


def unknown_field_problem(
    model: Any, loc: Sequence[str | int], *, kind: str = "field", owner: str = "it"
) -> str | None:
    """The message for pydantic's ``extra_forbidden`` error at ``loc`` in ``model`` (the
    name refused, :func:`unknown_name_message` with the fields taken at its place); None when
    no model is there to tell them."""
    if not loc:
        return None
    known = fields_at(model, loc[:-1])
    if known is None:
        return None
    return unknown_name_message(str(loc[-1]), known, kind=kind, owner=owner)


class EngravaGraphError(Exception):
    """Root of every error raised by engrava-graph on purpose.

    Attributes:
        status, code, field: set when the Python client raised the error for an answer of the
            REST service: the HTTP status, the service's machine code (``thought_not_found``)
            and the request field at fault; None otherwise.
    """

    status: int | None = None
    code: str | None = None
    field: str | None = None


class ValidationFailedError(EngravaGraphError, ValueError):
    """A request or record failed validation.

    Attributes:
        errors: pydantic's ``errors()`` list (``loc``, ``msg``, ``type``) when it came from
            pydantic.
    """

    def __init__(self, message: str, *, errors: Sequence[dict[str, Any]] = ()) -> None:
        super().__init__(message)
        self.errors = list(errors)

    @classmethod
    def from_pydantic(
        cls,
        error: ValidationError,
        *,
        loc: tuple[str | int, ...] = (),
        renamed: Mapping[str, str] | None = None,
    ) -> ValidationFailedError:
        """pydantic's ``error`` as one line, ``field.path: message`` per failure joined by
        ``"; "`` (no URL, no input echo, no ``"Value error, "``), with pydantic's ``errors``
        kept and each ``loc`` prefixed by ``loc`` (``("messages", 3)``).

        ``renamed`` names a model field by the caller's argument it was made from
        (``{"content": "text"}``); failures that become the same after renaming are given once.

        Examples:
            >>> from pydantic import BaseModel
            >>> class M(BaseModel):
            ...     n: int
            >>> try:
            ...     M(n="x")
            ... except ValidationError as e:
            ...     print(ValidationFailedError.from_pydantic(e, loc=("items", 0)))
            items.0.n: Input should be a valid integer, unable to parse string as an integer
        """
        names = renamed or {}
        errors: list[dict[str, Any]] = []
        for e in error.errors(include_url=False):
            where = tuple(e["loc"])
            if where and isinstance(where[0], str) and where[0] in names:
                where = (names[where[0]], *where[1:])
            entry = {**e, "loc": (*loc, *where)}
            if not any(seen["loc"] == entry["loc"] and seen["msg"] == e["msg"] for seen in errors):
                errors.append(entry)
        message = "; ".join(
            f"{'.'.join(str(part) for part in e['loc'])}: {validation_message(e)}"
            if e["loc"]
            else validation_message(e)
            for e in errors
        )
        return cls(message or str(error), errors=errors)

    @classmethod
    def of_field(cls, field: str, message: str) -> ValidationFailedError:
        """The error of one field, ``message`` also its pydantic-style ``msg`` (the REST
        service names ``field`` in its 422)."""
        return cls(message, errors=[{"loc": (field,), "msg": message, "type": "value_error"}])


class InvalidTransitionError(EngravaGraphError, ValueError):
    """An illegal lifecycle jump, e.g. CREATED -> DONE (see ``LifecycleStatus``)."""

    def __init__(
        self, *, entity_type: str, current_state: str, target_state: str, reason: str | None = None
    ) -> None:
        """Args:
        entity_type: the enum the state belongs to (``"LifecycleStatus"``).
        current_state: the state now.
        target_state: the state asked for.
        reason: the message, when the generic list of allowed steps would mislead (e.g.
            ``restore_thought`` on a thought that is not ARCHIVED).
        """
        super().__init__(
            reason
            or (
                f"{entity_type} cannot go from {current_state} to {target_state}; "
                f"allowed steps are CREATED->ACTIVE, ACTIVE->DONE|ARCHIVED, DONE->ARCHIVED, "
                f"ARCHIVED->ACTIVE (use restore_thought)"
            )
        )
        self.entity_type = entity_type
        self.current_state = current_state
        self.target_state = target_state


class ThoughtNotFoundError(EngravaGraphError, LookupError):
    """No thought with this id in this namespace."""

    def __init__(self, thought_id: str) -> None:
        super().__init__(f"thought {thought_id!r} does not exist in this namespace")
        self.thought_id = thought_id


class EdgeNotFoundError(EngravaGraphError, LookupError):
    """No edge with this id in this namespace."""

    def __init__(self, edge_id: str) -> None:
        super().__init__(f"edge {edge_id!r} does not exist in this namespace")
        self.edge_id = edge_id


class DuplicateThoughtError(EngravaGraphError):
    """A thought with this id already exists in this namespace.

    Attributes:
        thought_id: the id.
        field: in a bulk write, ``thoughts.<index>.thought_id`` (its position in the input, the
            REST request field at fault); else None.
    """

    def __init__(self, thought_id: str, *, index: int | None = None) -> None:
        super().__init__(
            f"thought {thought_id!r} already exists; change it with update_thought (REST: "
            f"PATCH /v1/thoughts/{thought_id}), or store this one under a new thought_id"
        )
        self.thought_id = thought_id
        self.field = None if index is None else f"thoughts.{index}.thought_id"


class RepeatedThoughtIdError(DuplicateThoughtError, ValueError):
    """The same thought id twice in one bulk write: nothing was written. Unlike an id already
    stored (:class:`DuplicateThoughtError`, which a retry reads as done), the request itself is
    wrong, so the REST service answers 422.

    Attributes:
        thought_id: the repeated id.
        index: the position (0-based) of its second occurrence in the input.
        field: ``thoughts.<index>.thought_id``, the REST request field at fault.
    """

    def __init__(self, thought_id: str, index: int) -> None:
        EngravaGraphError.__init__(
            self,
            f"thought id {thought_id!r} appears more than once in this request (again at "
            f"position {index}); nothing was stored: give each thought its own thought_id",
        )
        self.thought_id = thought_id
        self.index = index
        self.field = f"thoughts.{index}.thought_id"


class MessageConflictError(EngravaGraphError):
    """A conversation already holds a message with this id and other content (or speaker):
    ``add_messages`` never overwrites a stored message."""

    def __init__(self, *, conversation_id: str, message_id: str, position: int | None) -> None:
        where = "" if position is None else f" at position {position}"
        super().__init__(
            f"conversation {conversation_id!r} already has message {message_id!r}{where} with "
            f"other content; re-send it unchanged, or give the new message another message_id"
        )
        self.conversation_id = conversation_id
        self.message_id = message_id
        self.position = position


class RepeatedMessageIdError(MessageConflictError, ValueError):
    """The same message id twice in one ``add_messages`` batch with different content: nothing
    was written. Unlike a conflict with a stored message (:class:`MessageConflictError`), the
    request itself is wrong, so the REST service answers 422.

    Attributes:
        conversation_id, message_id: the conversation and the repeated id.
        position: None (the batch was not stored).
        index: the position (0-based) of the second occurrence in the batch.
        field: ``messages.<index>.message_id``, the REST request field at fault.
    """

    def __init__(self, *, conversation_id: str, message_id: str, index: int) -> None:
        EngravaGraphError.__init__(
            self,
            f"message id {message_id!r} appears twice in this batch with different content "
            f"(again at index {index}); nothing was stored: give each message its own message_id",
        )
        self.conversation_id = conversation_id
        self.message_id = message_id
        self.position = None
        self.index = index
        self.field = f"messages.{index}.message_id"


class DuplicateEdgeError(EngravaGraphError):
    """At most one edge per (from_thought_id, to_thought_id, edge_type), and edge ids are unique."""

    def __init__(
        self,
        *,
        from_thought_id: str,
        to_thought_id: str,
        edge_type: str,
        edge_id: str | None = None,
    ) -> None:
        what = (
            f"edge id {edge_id!r} is taken"
            if edge_id
            else (f"an edge {from_thought_id!r} -[{edge_type}]-> {to_thought_id!r} already exists")
        )
        super().__init__(f"{what}; nothing was written (change that edge, or use another type)")
        self.from_thought_id = from_thought_id
        self.to_thought_id = to_thought_id
        self.edge_type = edge_type
        self.edge_id = edge_id


class ReferentialIntegrityError(EngravaGraphError):
    """An edge names a thought that does not exist in the store's namespace.

    Attributes:
        missing_thought_ids: the endpoint ids that do not exist.
        field: the edge field naming the first of them (``from_thought_id`` or
            ``to_thought_id``), or None when not known.
    """

    def __init__(self, missing_thought_ids: Sequence[str], *, field: str | None = None) -> None:
        ids = ", ".join(repr(t) for t in missing_thought_ids)
        super().__init__(
            f"edge endpoint(s) {ids} do not exist in this namespace; create the thoughts first "
            f"(edges never cross namespaces)"
        )
        self.missing_thought_ids = list(missing_thought_ids)
        self.field = field


class ReadOnlyViolationError(EngravaGraphError, PermissionError):
    """A write was attempted through :class:`ReadOnlyEngrava`."""

    def __init__(self, method: str) -> None:
        super().__init__(f"{method}() writes, and this store view is read-only")
        self.method = method


class RecencyModeConflictError(EngravaGraphError, ValueError):
    """Both recency references were given explicitly (the other recency axis)."""

    def __init__(self) -> None:
        super().__init__(
            "pass either current_cycle (cycle recency) or recency_now (transaction-time "
            "recency), not both; the two clocks are never combined"
        )


class InvalidRecencyArgumentError(EngravaGraphError, ValueError):
    """A malformed ``recency_now`` / ``now`` or a non-positive half-life."""

    def __init__(self, argument: str, value: object, expected: str) -> None:
        super().__init__(f"{argument}={value!r} is invalid: expected {expected}")
        self.argument = argument
        self.value = value


class CycleProviderError(EngravaGraphError, ValueError):
    """A cycle (explicit or from a provider) that is not an int in 0 .. 2**63-1 (bools rejected)."""

    def __init__(self, value: object, *, source: str = "the cycle provider") -> None:
        """Args:
        value: the rejected cycle.
        source: where it came from, named in the message (e.g. ``"the current_cycle
            argument"`` or ``"the cycle provider"``).
        """
        super().__init__(
            f"{source} gave {value!r} ({type(value).__name__}); a cognitive cycle must "
            f"be a non-negative int of at most 2**63-1 (Neo4j's largest integer)"
        )
        self.value = value
        self.source = source


class InvalidFilterError(EngravaGraphError, ValueError):
    """A metadata filter that cannot be evaluated (bad path, operator or value)."""


class InvalidNamespaceError(EngravaGraphError, ValueError):
    """A namespace id outside ``[A-Za-z0-9_-]{1,64}``."""

    def __init__(self, namespace: object) -> None:
        super().__init__(
            f"namespace {namespace!r} is invalid: use 1-64 letters, digits, '-' or '_'"
        )
        self.namespace = namespace


class EmbeddingDimensionMismatchError(EngravaGraphError):
    """The embedding provider and the database's vector index disagree on dimensions."""

    def __init__(self, *, index_dimensions: int, provider_dimensions: int, index_name: str) -> None:
        super().__init__(
            f"vector index {index_name!r} has {index_dimensions} dimensions but the embedding "
            f"provider produces {provider_dimensions}; use a provider with {index_dimensions} "
            f"dimensions, or drop the index and re-embed every thought"
        )
        self.index_dimensions = index_dimensions
        self.provider_dimensions = provider_dimensions


class EmbeddingError(EngravaGraphError):
    """The embedding provider failed or broke its contract (shape, dtype, finiteness)."""


class SchemaVersionError(EngravaGraphError):
    """The database's schema is newer than this code, or not migrated."""


class Neo4jUnavailableError(EngravaGraphError, ConnectionError):
    """Neo4j cannot be reached or started; the message says what to do."""


class StaleDataError(EngravaGraphError):
    """Concurrent writers kept changing a thought while an update tried to apply."""

    def __init__(self, thought_id: str) -> None:
        super().__init__(
            f"thought {thought_id!r} kept changing under concurrent writers; re-read it and retry"
        )
        self.thought_id = thought_id


class InvalidStoredRecordError(EngravaGraphError):
    """A node or relationship in Neo4j no longer forms a valid record (edited by hand, e.g. in
    Neo4j Browser: ``SET t.priority = 'URGENT'``, ``SET t.content = 42``). The message names it
    and its first invalid fields, so it can be fixed or deleted in Neo4j; a thought can also be
    repaired by ``update_thought`` (REST: ``PATCH /v1/thoughts/{id}``) giving those fields
    valid values.

    Attributes:
        kind: ``"thought"`` or ``"edge"``.
        record_id: its ``thought_id`` or ``edge_id`` (``"?"`` when that is what is missing).
        problems: ``"field: reason"`` per invalid field.
        fields: the record fields at fault (``metadata`` for an unreadable ``metadata_json``);
            empty when the fault is between fields (``updated_cycle`` below ``created_cycle``).
    """

    def __init__(
        self, kind: str, record_id: str, problems: Sequence[str], *, fields: Sequence[str] = ()
    ) -> None:
        shown = "; ".join(problems[:3]) + (
            f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        )
        repair = (
            f"give those fields valid values with update_thought (PATCH "
            f"/v1/thoughts/{record_id}), or fix or delete it in Neo4j (e.g. in Neo4j Browser)"
            if kind == "thought"
            else "fix or delete it in Neo4j (e.g. in Neo4j Browser)"
        )
        super().__init__(
            f"{kind} {record_id!r} as stored in Neo4j is not a valid {kind}: {shown}; {repair}"
        )
        self.kind = kind
        self.record_id = record_id
        self.problems = list(problems)
        self.fields = list(fields)


class DatasetError(EngravaGraphError, ValueError):
    """A data file (e.g. LoCoMo for ``engrava-graph demo``) is missing or not of the expected
    shape; the message names the path and where to get the file."""


class CycleRequiredError(EngravaGraphError, ValueError):
    """``consolidate`` / ``run_hygiene`` need a cognitive cycle and none was given or provided
    (they never run with ``current_cycle=None``)."""

    def __init__(self, operation: str) -> None:
        super().__init__(
            f"{operation} needs a cognitive cycle: pass current_cycle=N or configure a "
            f"cycle_provider on the store (its age gates are in cycles)"
        )
        self.operation = operation


class HygienePolicyMissingError(EngravaGraphError, RuntimeError):
    """``run_hygiene`` was called on a store built without a hygiene policy."""

    def __init__(self) -> None:
        super().__init__(
            "run_hygiene() needs a hygiene policy: build the store with "
            "hygiene_policy=HygienePolicy(enabled=True, ...)"
        )


class MissingExtraError(EngravaGraphError, ImportError):
    """A feature needs an optional dependency group (an extra) that is not installed; the
    message names the extra and the ``pip install`` line (:func:`engrava_graph.extras.require`)."""


class MigrationError(EngravaGraphError):
    """An import from another store (``engrava-graph import-engrava``) cannot start or did not
    arrive whole, or a failed ``engrava-graph import`` could not remove what it wrote: the
    message names the file, the records or the namespace and what to do."""


class MigrationInputError(MigrationError, ValueError):
    """An import cannot start because of its input, which the caller must change: the file does
    not exist or is not the other store's database, holds records that do not fit, or has
    embeddings of another dimension than the target's index (the console script's exit code 2,
    as for any input file)."""


class ApiError(EngravaGraphError):
    """A call of the Python client (``engrava_graph.client``) to the REST service failed in a way
    no other library error describes: an unknown job or route, a 500, an answer that is not the
    service's JSON. Errors the service names (``thought_not_found``, ``duplicate_edge``, ...) are
    raised as their own classes instead, with the same attributes as below.

    Attributes:
        status: the HTTP status, or None when no answer came.
        code: the service's machine code (``job_not_found``, ``internal``, ...).
        message: the service's message (what went wrong and what to do).
        field: the request field at fault, when the service named one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "api_error",
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class AuthenticationError(ApiError):
    """HTTP 401: the API key is missing or unknown; give the client a key the service is
    configured with (``ENGRAVA_API_KEYS``)."""


class PermissionDeniedError(ApiError, PermissionError):
    """HTTP 403: the API key may not use this namespace, or it is read-only and the call writes;
    use a key whose ``namespaces`` include this one (and that is not ``read_only``)."""


class ServiceUnreachableError(ApiError, ConnectionError):
    """The REST service gave no answer (connection refused, DNS, timeout) even after the client's
    retries; check ``base_url`` and that ``engrava-graph serve`` runs, or raise ``timeout``."""


class DreamTimeoutError(ApiError, TimeoutError):
    """``wait_for_dream`` gave up: the dreaming job was still queued or running at the timeout.
    The job goes on in the service; poll ``get_dream(job_id)`` later or wait longer.

    Attributes:
        job_id: the job.
        job_status: its last status (``"queued"`` or ``"running"``).
    """

    def __init__(self, job_id: str, job_status: str, timeout: float) -> None:
        super().__init__(
            f"dream job {job_id!r} is still {job_status} after {timeout:g} s; it "
            f"goes on in the service: call get_dream({job_id!r}) later",
            code="dream_timeout",
        )
        self.job_id = job_id
        self.job_status = job_status


class NamespaceNotFoundError(EngravaGraphError, LookupError):
    """A read named a namespace that is not registered in this database."""

    def __init__(self, namespace: str) -> None:
        super().__init__(
            f"namespace {namespace!r} does not exist in this database; check the name, or "
            f"write a thought to create it"
        )
        self.namespace = namespace


class InvalidQueryError(EngravaGraphError, ValueError):
    """A retrieval argument is unusable: a naive ``now``, an unknown pathway, a tuning knob
    outside [0, 1], or a blank query given to the cycle's encoder directly (``retrieve`` and
    ``explain`` refuse a blank or over-long query earlier, with :class:`ValidationFailedError`).

    It also subclasses ``ValueError`` so pydantic validators may raise it; the API maps it
    to HTTP 422.

    Attributes:
        field: Name of the offending argument (``"query"``, ``"now"``, ``"pathway"``, ...).

    Examples:
        >>> raise InvalidQueryError("query must not be empty", field="query")
        Traceback (most recent call last):
        ...
        engrava_graph.model.errors.InvalidQueryError: query must not be empty
    """

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field
