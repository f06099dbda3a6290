"""Reading the LoCoMo data set (Maharana et al., ACL 2024) into thought records.

Each conversation becomes one namespace. Per session: one NOTE thought for the session and one
thought per turn (essence = "Speaker: text", clipped to 200 characters at a word boundary;
content = the full turn with its image caption; ``valid_from`` = the session's date (valid time:
when it happened); ``created_at`` is left to the store (transaction time: when the agent stored
it, so access-based decay treats the whole history as stored at ingest); ``created_cycle`` = the
session number), linked turn -[MESSAGE_OF]-> session. LoCoMo's
``observation`` entries become OBSERVATION thoughts linked observation -[DERIVED_FROM]-> turn.
The QA annotations' evidence ``dia_id``s are the ground truth. Ids are deterministic (turns
``D1:3``, sessions ``S1``, observations ``O1:Caroline:0``, edges ``MESSAGE_OF:D1:3->S1``), and
each conversation carries a fingerprint of its data-set entry, so a stored copy can be recognised.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engrava_graph.conversations import Message, clip
from engrava_graph.model import EdgeRecord, EdgeType, ThoughtRecord, ThoughtType
from engrava_graph.model.errors import DatasetError

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DIA_RE = re.compile(r"D\d+:\d+")
_SESSION_RE = re.compile(r"^session_(\d+)$")
WHERE_TO_GET = (
    "LoCoMo is the file data/locomo10.json of the public snap-research/LoCoMo "
    "repository on GitHub (CC BY-NC 4.0); download it and pass its path."
)
LOADER_VERSION = 1
"""Bumped whenever the records built from an entry change, so stored copies stop matching."""
TUNING_BLOCK = ("conv-26", "conv-30", "conv-41", "conv-42")
"""The conversations any tuning may look at."""
HELD_OUT_BLOCK = ("conv-43", "conv-44", "conv-47")
"""The conversations reported as a held-out block and never tuned on."""


def block_of(sample_id: str) -> str:
    """``"tuning"``, ``"held-out"`` or ``"other"`` (a conversation outside both blocks)."""
    return (
        "tuning"
        if sample_id in TUNING_BLOCK
        else "held-out"
        if sample_id in HELD_OUT_BLOCK
        else "other"
    )


@dataclass(frozen=True)
class Question:
    """One QA item: the question, its category name and evidence turn ids (``D<s>:<t>``)."""

    question: str
    category: str
    evidence: tuple[str, ...]
    answer: str


@dataclass(frozen=True)
class Session:
    """One LoCoMo session as the messages of one conversation (``add_messages``).

    Attributes:
        conversation_id: ``"session_<n>"``.
        number: n; date: the session's date (UTC), every message's timestamp.
        messages: its turns: speaker, text with the image caption, ``message_id`` = the turn's
            ``dia_id``, metadata ``{"dia_id", "session"}``.
    """

    conversation_id: str
    number: int
    date: datetime
    messages: tuple[Message, ...]


@dataclass
class Conversation:
    """One LoCoMo conversation as records ready to store.

    Attributes:
        sample_id: LoCoMo's id (``conv-26``), also the namespace.
        thoughts, edges: the records, in a fixed order (observation mode: turns, session
            notes, LoCoMo's observations).
        sessions_messages: the sessions as conversation messages (turns mode).
        questions: the QA items that have evidence.
        last_date: the date of the last session (UTC).
        sessions: the highest session number (= the last ``created_cycle``).
        fingerprint: SHA-256 of the entry's canonical JSON and :data:`LOADER_VERSION`.
    """

    sample_id: str
    thoughts: list[ThoughtRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    sessions_messages: list[Session] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    last_date: datetime | None = None
    sessions: int = 0
    fingerprint: str = ""

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


def session_id(dia_id: str) -> str:
    """``"D3:12"`` -> ``"S3"``."""
    return "S" + dia_id.split(":")[0][1:]


def _edge(source: str, target: str, edge_type: EdgeType, cycle: int) -> EdgeRecord:
    return EdgeRecord(
        edge_id=f"{edge_type.value}:{source}->{target}",
        from_thought_id=source,
        to_thought_id=target,
        edge_type=edge_type,
        created_cycle=cycle,
    )


def fingerprint(sample: dict) -> str:
    """SHA-256 hex of a data-set entry (canonical JSON) and :data:`LOADER_VERSION`."""
    canonical = json.dumps(sample, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(f"{LOADER_VERSION}\n{canonical}".encode()).hexdigest()


def _sessions(conv: dict) -> Iterator[tuple[int, datetime, list[dict]]]:
    for key, turns in conv.items():
        match = _SESSION_RE.match(key)
        if match and turns:
            number = int(match.group(1))
            yield number, parse_session_date(conv[f"{key}_date_time"]), turns


def turn_text(turn: dict) -> str:
    """A turn's text with its image caption (``"... [shares an image: <caption>]"``)."""
    return turn["text"] + (
        f" [shares an image: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
    )


def _turn_message(turn: dict, number: int, when: datetime) -> Message:
    return Message(
        speaker=turn["speaker"],
        content=turn_text(turn),
        timestamp=when,
        message_id=turn["dia_id"],
        metadata={"dia_id": turn["dia_id"], "session": number},
    )


def _turn_thought(turn: dict, number: int, when: datetime) -> ThoughtRecord:
    line = f"{turn['speaker']}: {turn['text']}"
    content = f"{turn['speaker']}: {turn_text(turn)}"
    return ThoughtRecord(
        thought_id=turn["dia_id"],
        thought_type=ThoughtType.NOTE,
        essence=clip(line),
        content=content,
        source="locomo",
        created_cycle=number,
        updated_cycle=number,
        valid_from=when,
        metadata={
            "kind": "turn",
            "speaker": turn["speaker"],
            "session": number,
            "dia_id": turn["dia_id"],
        },
    )


def _observations(
    sample: dict, dates: dict[int, datetime]
) -> Iterator[tuple[ThoughtRecord, list[str]]]:
    for key, by_speaker in (sample.get("observation") or {}).items():
        number = int(key.split("_")[1])
        for speaker, items in by_speaker.items():
            for index, (text, evidence) in enumerate(items):
                sources = list(dict.fromkeys(_DIA_RE.findall(str(evidence))))
                when = dates[number]
                yield (
                    ThoughtRecord(
                        thought_id=f"O{number}:{speaker}:{index}",
                        thought_type=ThoughtType.OBSERVATION,
                        essence=clip(text),
                        content=text,
                        source="locomo-observation",
                        created_cycle=number,
                        updated_cycle=number,
                        valid_from=when,
                        metadata={
                            "kind": "observation",
                            "speaker": speaker,
                            "session": number,
                            "dia_id": ",".join(sources),
                        },
                    ),
                    sources,
                )


def load_conversation(sample: dict) -> Conversation:
    """One LoCoMo item as a :class:`Conversation` (deterministic ids: ``D1:3``, ``S1``,
    ``O1:Caroline:0``)."""
    conv = sample["conversation"]
    out = Conversation(sample_id=sample["sample_id"], fingerprint=fingerprint(sample))
    dates: dict[int, datetime] = {}
    turn_ids: set[str] = set()
    for number, when, turns in sorted(_sessions(conv)):
        dates[number] = when
        sid = f"S{number}"
        out.thoughts.append(
            ThoughtRecord(
                thought_id=sid,
                thought_type=ThoughtType.NOTE,
                essence=f"Session {number}: {conv['speaker_a']} and {conv['speaker_b']} talk "
                f"({when:%d %B %Y})",
                content=f"Conversation session {number} on {when:%d %B %Y %H:%M}",
                source="locomo",
                created_cycle=number,
                updated_cycle=number,
                valid_from=when,
                metadata={"kind": "session", "session": number},
            )
        )
        out.sessions_messages.append(
            Session(
                conversation_id=f"session_{number}",
                number=number,
                date=when,
                messages=tuple(_turn_message(turn, number, when) for turn in turns),
            )
        )
        for turn in turns:
            out.thoughts.append(_turn_thought(turn, number, when))
            turn_ids.add(turn["dia_id"])
            out.edges.append(_edge(turn["dia_id"], sid, EdgeType.MESSAGE_OF, number))
    for record, sources in _observations(sample, dates):
        out.thoughts.append(record)
        for source in sources:
            if source in turn_ids:
                out.edges.append(
                    _edge(record.thought_id, source, EdgeType.DERIVED_FROM, record.created_cycle)
                )
    out.last_date = max(dates.values()) if dates else None
    out.sessions = max(dates, default=0)
    for qa in sample.get("qa", []):
        evidence = tuple(e for item in qa.get("evidence", []) for e in _DIA_RE.findall(item))
        if evidence:
            out.questions.append(
                Question(
                    question=qa["question"],
                    category=CATEGORIES.get(qa["category"], "other"),
                    evidence=evidence,
                    answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                )
            )
    return out


def load_dataset(path: str | Path) -> list[Conversation]:
    """Every conversation of a LoCoMo JSON file.

    Raises:
        DatasetError: the file is missing, not JSON, or not LoCoMo-shaped.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DatasetError(f"{path} does not exist. {WHERE_TO_GET}") from exc
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{path} cannot be read as JSON ({exc}). {WHERE_TO_GET}") from exc
    if (
        not isinstance(data, list)
        or not data
        or not all(isinstance(s, dict) and {"sample_id", "conversation"} <= s.keys() for s in data)
    ):
        raise DatasetError(
            f"{path} is not a LoCoMo data file (a JSON list of conversations, "
            f"each with sample_id and conversation). {WHERE_TO_GET}"
        )
    return [load_conversation(sample) for sample in data]


def evidence_of(record_metadata: dict) -> set[str]:
    """The turn ids a retrieved thought stands for: a turn its own ``dia_id``, an observation
    the turns it was derived from, a session none."""
    raw = record_metadata.get("dia_id") or ""
    return set(_DIA_RE.findall(str(raw)))
