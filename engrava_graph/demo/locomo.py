"""Reading the LoCoMo data set (Maharana et al., ACL 2024) into thought records.

Each conversation becomes one namespace. Per session: one NOTE thought for the session and one
thought per turn (essence = "Speaker: text", clipped to 200 characters at a word boundary;
content = the full turn with its image caption; ``valid_from`` and ``created_at`` = the session's
date; ``created_cycle`` = the session number), linked turn -[MESSAGE_OF]-> session. LoCoMo's
``observation`` entries become OBSERVATION thoughts linked observation -[DERIVED_FROM]-> turn.
The QA annotations' evidence ``dia_id``s are the ground truth.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engrava_graph.model import EdgeRecord, EdgeType, ThoughtRecord, ThoughtType

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DIA_RE = re.compile(r"D\d+:\d+")
_SESSION_RE = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Question:
    """One QA item: the question, its category name and evidence turn ids (``D<s>:<t>``)."""

    question: str
    category: str
    evidence: tuple[str, ...]
    answer: str


@dataclass
class Conversation:
    """One LoCoMo conversation as records ready to store."""

    sample_id: str
    thoughts: list[ThoughtRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    last_date: datetime | None = None

    @property
    def namespace(self) -> str:
        """The namespace this conversation is stored in (its sample id, e.g. ``conv-26``)."""
        return self.sample_id


def parse_session_date(text: str) -> datetime:
    """LoCoMo's ``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime.

    Raises:
        ValueError: on any other shape.
    """
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def clip(text: str, limit: int = 200) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary (with an ellipsis)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def session_id(dia_id: str) -> str:
    """``"D3:12"`` -> ``"S3"``."""
    return "S" + dia_id.split(":")[0][1:]


def _sessions(conv: dict) -> Iterator[tuple[int, datetime, list[dict]]]:
    for key, turns in conv.items():
        match = _SESSION_RE.match(key)
        if match and turns:
            number = int(match.group(1))
            yield number, parse_session_date(conv[f"{key}_date_time"]), turns


def _turn_thought(turn: dict, number: int, when: datetime) -> ThoughtRecord:
    line = f"{turn['speaker']}: {turn['text']}"
    content = line + (f" [shares an image: {turn['blip_caption']}]" if turn.get("blip_caption")
                      else "")
    return ThoughtRecord(
        thought_id=turn["dia_id"], thought_type=ThoughtType.NOTE, essence=clip(line),
        content=content, source="locomo", created_cycle=number, updated_cycle=number,
        created_at=when, updated_at=when, valid_from=when,
        metadata={"kind": "turn", "speaker": turn["speaker"], "session": number,
                  "dia_id": turn["dia_id"]})


def _observations(sample: dict, dates: dict[int, datetime]) -> Iterator[tuple[ThoughtRecord, list[str]]]:
    for key, by_speaker in (sample.get("observation") or {}).items():
        number = int(key.split("_")[1])
        for speaker, items in by_speaker.items():
            for index, (text, evidence) in enumerate(items):
                sources = _DIA_RE.findall(str(evidence))
                when = dates[number]
                yield ThoughtRecord(
                    thought_id=f"O{number}:{speaker}:{index}", thought_type=ThoughtType.OBSERVATION,
                    essence=clip(text), content=text, source="locomo-observation",
                    created_cycle=number, updated_cycle=number, created_at=when, updated_at=when,
                    valid_from=when,
                    metadata={"kind": "observation", "speaker": speaker, "session": number,
                              "dia_id": ",".join(sources)}), sources


def load_conversation(sample: dict) -> Conversation:
    """One LoCoMo item as a :class:`Conversation` (deterministic ids: ``D1:3``, ``S1``,
    ``O1:Caroline:0``)."""
    conv = sample["conversation"]
    out = Conversation(sample_id=sample["sample_id"])
    dates: dict[int, datetime] = {}
    turn_ids: set[str] = set()
    for number, when, turns in sorted(_sessions(conv)):
        dates[number] = when
        sid = f"S{number}"
        out.thoughts.append(ThoughtRecord(
            thought_id=sid, thought_type=ThoughtType.NOTE,
            essence=f"Session {number}: {conv['speaker_a']} and {conv['speaker_b']} talk "
                    f"({when:%d %B %Y})",
            content=f"Conversation session {number} on {when:%d %B %Y %H:%M}", source="locomo",
            created_cycle=number, updated_cycle=number, created_at=when, updated_at=when,
            valid_from=when, metadata={"kind": "session", "session": number}))
        for turn in turns:
            out.thoughts.append(_turn_thought(turn, number, when))
            turn_ids.add(turn["dia_id"])
            out.edges.append(EdgeRecord(from_thought_id=turn["dia_id"], to_thought_id=sid,
                                        edge_type=EdgeType.MESSAGE_OF, created_cycle=number))
    for record, sources in _observations(sample, dates):
        out.thoughts.append(record)
        for source in sources:
            if source in turn_ids:
                out.edges.append(EdgeRecord(
                    from_thought_id=record.thought_id, to_thought_id=source,
                    edge_type=EdgeType.DERIVED_FROM, created_cycle=record.created_cycle))
    out.last_date = max(dates.values()) if dates else None
    for qa in sample.get("qa", []):
        evidence = tuple(e for item in qa.get("evidence", []) for e in _DIA_RE.findall(item))
        if evidence:
            out.questions.append(Question(
                question=qa["question"], category=CATEGORIES.get(qa["category"], "other"),
                evidence=evidence, answer=str(qa.get("answer", qa.get("adversarial_answer", "")))))
    return out


def load_dataset(path: str | Path) -> list[Conversation]:
    """Every conversation of a LoCoMo JSON file.

    Raises:
        FileNotFoundError: the file is missing; ValueError: it is not LoCoMo-shaped.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list) or not data or "conversation" not in data[0]:
        raise ValueError(f"{path} is not a LoCoMo data file (a JSON list of conversations)")
    return [load_conversation(sample) for sample in data]


def evidence_of(record_metadata: dict) -> set[str]:
    """The turn ids a retrieved thought stands for: a turn its own ``dia_id``, an observation
    the turns it was derived from, a session none."""
    raw = record_metadata.get("dia_id") or ""
    return set(_DIA_RE.findall(str(raw)))
