"""ThoughtFilter: which thoughts a listing takes (``list_thoughts``, ``count_thoughts``).

One value object instead of the same eleven keyword arguments on every listing method: build it
once, pass it whole, derive a variant with :meth:`ThoughtFilter.with_criteria`. No I/O; the
store turns it into the parameters of ``cypher/thoughts/_filter``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engrava_graph.model.enums import LifecycleStatus, Priority, ThoughtType, ThoughtVisibility
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.temporal import ValidTimeFilter


@dataclass(frozen=True)
class ThoughtFilter:
    """Thoughts for which every given criterion holds (None = any).

    Attributes:
        priority, lifecycle_status, thought_type, visibility: exact matches (a member or its
            string value).
        exclude_visibility: anything but this visibility.
        min_cycle, max_cycle: bounds on ``updated_cycle`` (inclusive).
        include_expired: also thoughts past ``expires_at`` (default: not).
        include_archived: also ARCHIVED thoughts (default: yes; a listing is not ranked
            retrieval).
        filters: metadata predicates, all of which must hold.
        valid_time: a valid-time predicate (at an instant, within or between two).

    Examples:
        >>> notes = ThoughtFilter(thought_type=ThoughtType.NOTE)
        >>> notes.with_criteria(include_expired=True).cypher_params()["thought_type"]
        'NOTE'
    """

    priority: Priority | str | None = None
    lifecycle_status: LifecycleStatus | str | None = None
    thought_type: ThoughtType | str | None = None
    min_cycle: int | None = None
    max_cycle: int | None = None
    visibility: ThoughtVisibility | str | None = None
    exclude_visibility: ThoughtVisibility | str | None = None
    include_expired: bool = False
    include_archived: bool = True
    filters: MetadataFilter | None = None
    valid_time: ValidTimeFilter | None = None

    def __post_init__(self) -> None:
        """Raises:
        ValidationFailedError: ``min_cycle`` above ``max_cycle`` (a range nothing is in; the
            error's field is ``min_cycle``)."""
        low, high = self.min_cycle, self.max_cycle
        if low is not None and high is not None and low > high:
            raise ValidationFailedError.of_field(
                "min_cycle", f"min_cycle {low} is above max_cycle {high}: no thought can match"
            )

    def with_criteria(self, **criteria: Any) -> ThoughtFilter:
        """This filter with ``criteria`` (field names) replaced.

        Raises:
            TypeError: a name that is not a field.
            ValidationFailedError: as the constructor.
        """
        return dataclasses.replace(self, **criteria) if criteria else self

    def cypher_params(self) -> dict[str, Any]:
        """The parameters of ``cypher/thoughts/_filter`` but ``$namespace`` and ``$now`` (the
        store's): enum members as their string values, the metadata and valid-time predicates
        expanded."""
        plain = {
            "priority": self.priority,
            "lifecycle_status": self.lifecycle_status,
            "thought_type": self.thought_type,
            "visibility": self.visibility,
            "exclude_visibility": self.exclude_visibility,
        }
        params: dict[str, Any] = {
            k: (None if v is None else str(getattr(v, "value", v))) for k, v in plain.items()
        }
        params.update(
            min_cycle=self.min_cycle,
            max_cycle=self.max_cycle,
            include_expired=self.include_expired,
            include_archived=self.include_archived,
            meta_filters=MetadataFilter.of(self.filters).to_params(),
            vt_kind=None,
            vt_start=None,
            vt_end=None,
        )
        if self.valid_time is not None:
            params.update(self.valid_time.cypher_params())
        return params
