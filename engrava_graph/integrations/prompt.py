"""Turn retrieved memories into text for an LLM prompt.

:func:`format_for_prompt` is the one place that decides how a memory reads to a model: its
essence, when it happened, how confident the retrieval is, and the causal chain through it. The
MCP ``retrieve`` tool, the LangChain retriever and tools and the LangGraph store all use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from engrava_graph.model.enums import EdgeType
from engrava_graph.retrieval.results import CausalLink, RetrievalResponse, RetrievedMemory

HEADER = "Relevant memories (most relevant first):"
EMPTY = "No relevant memories."


def when(memory: RetrievedMemory) -> datetime | None:
    """When the memory happened: its ``valid_from`` (event time) when set, else when it was
    stored (``created_at``); None when neither is known."""
    return memory.valid_from or memory.created_at


def stamp(moment: datetime | None) -> str:
    """``2026-11-24 15:00 UTC`` (minutes; UTC), or ``time unknown``."""
    if moment is None:
        return "time unknown"
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def cause_and_effect(link: CausalLink) -> tuple[str, str]:
    """The ``(cause id, effect id)`` of a causal link: ``CAUSED_BY`` points effect -> cause,
    ``LEADS_TO`` (and any other type) cause -> effect."""
    if link.edge_type == EdgeType.CAUSED_BY.value:
        return link.to_thought_id, link.from_thought_id
    return link.from_thought_id, link.to_thought_id


def _chain_lines(memory: RetrievedMemory, texts: Mapping[str, str]) -> list[str]:
    """One ``cause -> effect (confidence c)`` line per causal link through ``memory``, nearest
    first; a thought whose text is unknown is shown by its id."""
    lines = []
    for link in sorted(memory.causal_links, key=lambda link: link.hops):
        cause, effect = cause_and_effect(link)
        lines.append(
            f"{texts.get(cause, cause)} -> {texts.get(effect, effect)} "
            f"(link confidence {link.confidence:.2f})"
        )
    return lines


def format_for_prompt(
    results: RetrievalResponse | Sequence[RetrievedMemory],
    *,
    max_items: int | None = None,
    texts: Mapping[str, str] | None = None,
) -> str:
    """Render retrieved memories as a numbered list for an LLM prompt.

    Each memory is one line ``N. [when · confidence c] essence``, followed by its causal
    chain, one indented ``because:`` line per link (``cause -> effect (link confidence c)``).
    ``when`` is the event time (``valid_from``) or else the time stored, in UTC, minutes.

    Args:
        results: a :class:`RetrievalResponse` (from ``retrieve``) or its ``results`` list, best
            first (the order is kept).
        max_items: keep only the first N memories (None: all).
        texts: extra ``thought_id -> text`` used to name the thoughts of a causal chain that are
            not themselves among the results (otherwise they show as their id).

    Returns:
        The text, starting with a one-line header; ``"No relevant memories."`` when empty.

    Raises:
        ValueError: ``max_items`` below 1.

    Examples:
        >>> format_for_prompt([])
        'No relevant memories.'
    """
    if max_items is not None and max_items < 1:
        raise ValueError(f"max_items must be >= 1, got {max_items}")
    memories = list(results.results if isinstance(results, RetrievalResponse) else results)
    if not memories:
        return EMPTY
    known = {m.thought_id: m.text for m in memories} | dict(texts or {})
    lines = [HEADER]
    for rank, memory in enumerate(memories[:max_items], start=1):
        lines.append(
            f"{rank}. [{stamp(when(memory))} · confidence {memory.confidence:.2f}] {memory.text}"
        )
        lines.extend(f"   because: {line}" for line in _chain_lines(memory, known))
    return "\n".join(lines)
