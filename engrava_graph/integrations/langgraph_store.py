"""A LangGraph ``BaseStore`` backed by the memory (the ``langchain`` extra).

LangGraph agents keep long-term memory in a store: ``put(namespace, key, value)``,
``get(namespace, key)``, ``search(namespace_prefix, query=...)``. :class:`EngravaStore` keeps each
item as one thought of a Neo4j namespace, so a ``search`` with a ``query`` runs the retrieval
cycle (meaning, keywords, time, causal links) and the items are also visible to ``retrieve``,
the MCP server and Neo4j Browser.

An item is a NOTE thought whose id is derived from (store namespace, item namespace, key), whose
``content`` is the value as JSON and whose ``essence`` is the value's text (its ``text``,
``content``, ``memory`` or ``data`` field, else the JSON), cut to 200 characters. The item's
namespace and key are kept in the thought's metadata under ``langgraph`` (``ns.0``, ``ns.1``, ...
so that a namespace prefix is a metadata filter that runs in Cypher).

Only the async API is supported (``aget``, ``aput``, ``asearch``, ..., and graphs run with
``ainvoke``/``astream``): the Neo4j driver is asynchronous and bound to its event loop.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, cast

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from pydantic import ValidationError

from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.model.bounds import blank
from engrava_graph.model.enums import ThoughtType
from engrava_graph.model.errors import ValidationFailedError
from engrava_graph.model.metadata import MetadataFilter
from engrava_graph.model.records import ESSENCE_MAX_CHARS, ThoughtRecord
from engrava_graph.retrieval.results import RetrievalResponse

META_KEY = "langgraph"
TEXT_FIELDS = ("text", "content", "memory", "data")
_PAGE = 1000
RANKED_MAX = 100
"""The most items a search with a query ranks (the retrieval cycle's ``top_k`` bound)."""


def item_id(store_namespace: str, namespace: tuple[str, ...], key: str) -> str:
    """The thought id of an item: a UUID5 of the store's namespace, the item's namespace and
    its key (the same item always maps to the same thought), joined by the unit separator
    U+001F with an empty part after the labels. LangGraph refuses empty labels, and a label
    holding U+001F is refused here, so no two items share a name.

    Raises:
        ValidationFailedError: a label holds U+001F (the one label "team", U+001F, "alice"
            would name the items of ``("team", "alice")``).
    """
    if any("\x1f" in label for label in namespace):
        raise ValidationFailedError.of_field(
            "namespace", "a namespace label cannot hold the unit separator U+001F"
        )
    name = "\x1f".join((store_namespace, *namespace, "", key))
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"engrava-graph:langgraph:{name}"))


def item_text(value: dict[str, Any]) -> str:
    """The text that represents a value: its first ``text``/``content``/``memory``/``data``
    string that is not blank (:func:`~engrava_graph.model.bounds.blank`: a thought's essence
    must show something), else the value as JSON (sorted keys)."""
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and not blank(value[name]):
            return str(value[name])
    return json.dumps(value, sort_keys=True, default=str)


def _metadata(namespace: tuple[str, ...], key: str) -> dict[str, Any]:
    return {
        META_KEY: {
            "item": True,
            "key": key,
            "ns": {str(i): label for i, label in enumerate(namespace)},
        }
    }


def _prefix_filter(prefix: tuple[str, ...]) -> dict[str, Any]:
    """The metadata filter (``{"path": value}``) of the items under ``prefix``."""
    return {
        f"{META_KEY}.item": True,
        **{f"{META_KEY}.ns.{i}": label for i, label in enumerate(prefix)},
    }


def _item_metadata(thought: ThoughtRecord) -> dict[str, Any]:
    """The item's own metadata (``item``, ``key``, ``ns``), as :func:`_metadata` wrote it."""
    return cast(dict[str, Any], thought.metadata[META_KEY])


def _namespace_of(thought: ThoughtRecord) -> tuple[str, ...]:
    labels = _item_metadata(thought)["ns"]
    return tuple(labels[str(i)] for i in range(len(labels)))


def _item(thought: ThoughtRecord, score: float | None = None) -> SearchItem:
    created = thought.created_at or datetime.now(UTC)
    return SearchItem(
        namespace=_namespace_of(thought),
        key=str(_item_metadata(thought)["key"]),
        value=json.loads(thought.content),
        created_at=created,
        updated_at=thought.updated_at or created,
        score=score,
    )


def _json_value(value: Any) -> tuple[dict[str, Any], str]:
    """An item's value and its JSON text.

    Raises:
        ValidationFailedError: the value is not a dict, or holds something JSON cannot hold.
    """
    if not isinstance(value, dict):
        raise ValidationFailedError.of_field(
            "value", f"an item's value must be a dict, not {type(value).__name__}"
        )
    try:
        return dict(value), json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValidationFailedError.of_field(
            "value", f"an item's value must be JSON (str, number, bool, None, list, dict): {exc}"
        ) from None


def _check_filter(wanted: dict[str, Any] | None) -> None:
    """Refuse comparison operators (``{"team": {"$eq": "billing"}}``): the filter matches
    values exactly, and an operator dict would match no item instead of failing."""
    for name, expected in (wanted or {}).items():
        if isinstance(expected, dict) and any(str(k).startswith("$") for k in expected):
            raise ValidationFailedError.of_field(
                f"filter.{name}",
                "filter operators ($eq, $gt, ...) are not supported: give the value an item "
                "must equal",
            )


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    """The value has every ``wanted`` field equal (LangGraph's exact-match filter)."""
    return all(value.get(name) == expected for name, expected in (wanted or {}).items())


class EngravaStore(BaseStore):
    """LangGraph's ``BaseStore`` over one namespace of the memory.

    Args:
        store: the memory store; its namespace holds every item (the item namespaces are
            metadata inside it).

    Raises (from the operations):
        NotImplementedError: the synchronous ``batch`` (use the ``a``-prefixed methods).
        ValidationFailedError: a value that is not JSON-serialisable or a label the metadata
            cannot hold; a negative ``offset`` or ``limit`` (``asearch``,
            ``alist_namespaces``), a ``max_depth`` below 1.
    """

    def __init__(self, store: Neo4jEngravaCore) -> None:
        self.store = store

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Not supported: the Neo4j driver is asynchronous (use ``abatch`` / ``aget`` / ...)."""
        raise NotImplementedError(
            "EngravaStore is async-only: use aget/aput/asearch, and run graphs with ainvoke/astream"
        )

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; one result each (None for a put)."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(await self._get(op))
            elif isinstance(op, PutOp):
                await self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(await self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return results

    async def _get(self, op: GetOp) -> Item | None:
        thought = await self.store.get_thought(item_id(self.store.namespace, op.namespace, op.key))
        return None if thought is None else _item(thought)

    async def _put(self, op: PutOp) -> None:
        thought_id = item_id(self.store.namespace, op.namespace, op.key)
        if op.value is None:
            await self.store.delete_thought(thought_id)
            return
        value, content = _json_value(op.value)
        essence = item_text(value).strip()[:ESSENCE_MAX_CHARS] or op.key
        if await self.store.get_thought(thought_id) is not None:
            await self.store.update_thought(thought_id, essence=essence, content=content)
            return
        try:
            record = ThoughtRecord(
                thought_id=thought_id,
                thought_type=ThoughtType.NOTE,
                essence=essence,
                content=content,
                source="langgraph",
                metadata=_metadata(op.namespace, op.key),
            )
        except ValidationError as exc:  # a NUL in the key, a value over the size bound, ...
            raise ValidationFailedError.from_pydantic(exc) from None
        await self.store.create_thought(record)

    async def recall(
        self, namespace_prefix: tuple[str, ...], query: str, *, top_k: int = 5
    ) -> RetrievalResponse:
        """Run the retrieval cycle over the items under ``namespace_prefix`` (for
        :func:`~engrava_graph.integrations.prompt.format_for_prompt`).

        Raises:
            ValidationFailedError: ``top_k`` outside 1-100 or an empty query.
        """
        return await self.store.retrieve(
            query,
            top_k=top_k,
            now=datetime.now(UTC),
            metadata_filter=_prefix_filter(namespace_prefix),
        )

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        """The items under the prefix that match ``op.filter``, then ``op.offset`` and
        ``op.limit`` (the filter runs before the page is cut). With a query they are the
        cycle's best :data:`RANKED_MAX` in rank order; without one, every item by id."""
        _check_page(op.offset, op.limit)
        _check_filter(op.filter)
        wanted = op.offset + op.limit
        if op.query:
            if wanted > RANKED_MAX:
                raise ValidationFailedError.of_field(
                    "offset",
                    f"a search with a query ranks at most {RANKED_MAX} items: "
                    f"offset + limit is {wanted}",
                )
            top_k = RANKED_MAX if op.filter else max(wanted, 1)
            response = await self.recall(op.namespace_prefix, op.query, top_k=top_k)
            found = await self.store.get_thoughts([r.thought_id for r in response.results])
            ranked = (
                _item(found[r.thought_id], r.confidence)
                for r in response.results
                if r.thought_id in found
            )
            return [i for i in ranked if _matches(i.value, op.filter)][op.offset : wanted]
        kept: list[SearchItem] = []
        after: str | None = None
        while len(kept) < wanted:
            page = await self.store.list_thoughts(
                filters=MetadataFilter.from_mapping(_prefix_filter(op.namespace_prefix)),
                after_id=after,
                limit=_PAGE,
            )
            kept += [i for i in map(_item, page) if _matches(i.value, op.filter)]
            if len(page) < _PAGE:
                break
            after = page[-1].thought_id
        return kept[op.offset : wanted]

    async def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        """The distinct item namespaces that meet ``op.match_conditions``, cut to
        ``op.max_depth`` labels, sorted, then ``op.offset`` and ``op.limit``.

        Raises:
            ValidationFailedError: a negative ``offset`` or ``limit``, or a ``max_depth``
                below 1.
        """
        _check_page(op.offset, op.limit)
        if op.max_depth is not None and op.max_depth < 1:
            raise ValidationFailedError.of_field(
                "max_depth", f"max_depth must be >= 1 (or None: every label), not {op.max_depth}"
            )
        seen: set[tuple[str, ...]] = set()
        after: str | None = None
        while True:
            page = await self.store.list_thoughts(
                filters=MetadataFilter.from_mapping(_prefix_filter(())), after_id=after, limit=_PAGE
            )
            seen.update(_namespace_of(t) for t in page)
            if len(page) < _PAGE:
                break
            after = page[-1].thought_id
        chosen = sorted(
            {
                ns[: op.max_depth]
                for ns in seen
                if all(
                    _condition(ns, c.match_type, tuple(c.path)) for c in op.match_conditions or ()
                )
            }
        )
        return chosen[op.offset : op.offset + op.limit]


def _check_page(offset: int, limit: int) -> None:
    """Refuse a page that slicing would misread (a negative offset counts from the end).

    Raises:
        ValidationFailedError: ``offset`` or ``limit`` below 0, naming the field.
    """
    if offset < 0 or limit < 0:
        raise ValidationFailedError.of_field(
            "offset" if offset < 0 else "limit", "offset and limit must be >= 0"
        )


def _condition(namespace: tuple[str, ...], match_type: str, path: tuple[str, ...]) -> bool:
    """LangGraph's prefix/suffix namespace condition; ``"*"`` matches any one label."""
    part = namespace[: len(path)] if match_type == "prefix" else namespace[-len(path) :]
    return len(part) == len(path) and all(
        p in ("*", label) for p, label in zip(path, part, strict=True)
    )
