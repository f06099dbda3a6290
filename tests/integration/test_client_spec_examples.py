"""The retrieval cycle document's code examples run as written, through the Python client, against
the real service (uvicorn on 127.0.0.1) on the real Neo4j.

The examples are read from the spec file itself at test time (:func:`spec_examples`), so they
run unmodified: only ``client`` is provided. With :class:`AsyncClient` the same text runs with
``await`` put before each ``client.…(…)`` call (an AST rewrite, nothing else changes). Each test
checks what the example prints and that the attributes it uses exist with the right types.
"""

from __future__ import annotations

import ast
import inspect
import io
import json
import re
import textwrap
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import redirect_stdout
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import engrava_graph.client
from engrava_graph.client import AsyncClient, Client
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.retrieval.results import (
    PHASES,
    CausalLink,
    Explanation,
    RetrievalResponse,
    RetrievedMemory,
)
from engrava_graph.retrieval.types import Intent, Pathway
from tests.integration.client_service import Service, running_service

_SPEC_TAIL = Path("shared") / "seeds" / "000_edb883dc6bc6ee12.txt"
SPEC = next(
    (
        path
        for path in (Path(__file__).resolve().parents[3] / _SPEC_TAIL, Path("/work") / _SPEC_TAIL)
        if path.is_file()
    ),
    Path(__file__).resolve().parents[3] / _SPEC_TAIL,
)
"""The retrieval spec, in ``shared/`` beside the repository, else in ``/work/shared`` (where the
demo also looks for its data, so a clone elsewhere tests it too)."""

KINDS = ["sync", "async"]

_START = re.compile(r"^\w+ = client\.\w+\(")
_CODE = re.compile(r"^(\s+\S|#|print\(|for |\w+ = client\.)")

DEPLOY_MEMORIES = {
    # essence: (content, priority, belief, accesses) — reinforced, important memories
    "The deployment window is Tuesday 2-4pm UTC": (
        "The deploy schedule: deploys go out in the deployment window, Tuesday 2-4pm UTC.",
        "P1",
        0.95,
        12,
    ),
    "Deploy freeze starts Friday for release cut": (
        "The deploy schedule has a deploy freeze from Friday for the release cut.",
        "P1",
        0.9,
        6,
    ),
    "Last deploy was delayed due to staging issues": (
        "The last deploy was delayed off its deploy schedule due to staging issues.",
        "P2",
        0.8,
        3,
    ),
}
CAUSAL_CHAIN = {  # thought_id: essence
    "outage": "API outage on Tuesday afternoon",
    "deploy-failed": "Deploy failed at 3pm",
    "missing-env": "Missing env variable",
    "config-pr": "Config PR merged at 2:45pm",
}
CAUSAL_EDGES = [
    ("outage", "deploy-failed", "CAUSED_BY"),
    ("deploy-failed", "missing-env", "CAUSED_BY"),
    ("config-pr", "deploy-failed", "LEADS_TO"),
]


def spec_examples(text: str) -> list[str]:
    """The spec's code examples: each run of lines that starts with ``name = client.call(`` and
    goes on with code (indented lines, comments, ``print(``, ``for``, blank lines), as written."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in [*text.splitlines(), "END"]:
        if current is not None and (not line.strip() or _CODE.match(line)):
            current.append(line)
            continue
        if current is not None:
            blocks.append("\n".join(current).strip() + "\n")
        current = [line] if _START.match(line) else None
    return blocks


@pytest.fixture(scope="module")
def examples() -> list[str]:
    assert SPEC.is_file(), f"the retrieval spec is missing: {SPEC}"
    found = spec_examples(SPEC.read_text(encoding="utf-8"))
    for block in found:
        ast.parse(block)
    return found


def example(examples: list[str], first_line: str) -> str:
    """The example whose first line is ``first_line``."""
    matching = [block for block in examples if block.splitlines()[0] == first_line]
    assert len(matching) == 1, f"the spec has no single example starting {first_line!r}"
    return matching[0]


@pytest.fixture(scope="module")
def service(connection: Any, provider: Any) -> Iterator[Service]:
    with running_service(connection, provider) as running:
        yield running


@pytest.fixture(scope="module")
async def namespace(service: Service, executor: GraphExecutor) -> AsyncIterator[str]:
    """A namespace seeded through the client: the deploy-schedule memories, the outage's
    causal chain and an unrelated memory; deleted after the module."""
    name = f"clspec-{uuid.uuid4().hex[:12]}"
    now = datetime.now(UTC)
    with Client(service.base_url, service.api_key, namespace=name) as client:
        for essence, (content, priority, belief, accesses) in DEPLOY_MEMORIES.items():
            client.remember(
                essence,
                {"topic": "deploy"},
                content=content,
                priority=priority,
                confidence=belief,
                tags=["deploy", "schedule"],
                access_count=accesses,
                last_accessed_at=now,
            )
        for thought_id, essence in CAUSAL_CHAIN.items():
            client.remember(essence, {"topic": "incident"}, thought_id=thought_id)
        for source, target, edge_type in CAUSAL_EDGES:
            client.create_edge(from_thought_id=source, to_thought_id=target, edge_type=edge_type)
        client.remember("The team lunch is on Thursdays")
    yield name
    await Neo4jEngravaCore(executor, namespace=name).delete_namespace()


@pytest.fixture(params=KINDS)
async def client(
    request: pytest.FixtureRequest, service: Service, namespace: str
) -> AsyncIterator[Client | AsyncClient]:
    made = service.client(request.param, namespace)
    yield made
    if isinstance(made, AsyncClient):
        await made.aclose()
    else:
        made.close()


class _AwaitClientCalls(ast.NodeTransformer):
    """``client.f(...)`` -> ``await client.f(...)``: the async form of an example."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "client"
        ):
            return ast.Await(value=node)
        return node


async def run_example(source: str, client: Client | AsyncClient) -> tuple[dict[str, Any], str]:
    """Run an example with ``client`` bound; return its variables and what it printed."""
    tree = ast.parse(source)
    flags = 0
    if isinstance(client, AsyncClient):
        tree = ast.fix_missing_locations(_AwaitClientCalls().visit(tree))
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    code = compile(tree, "<spec 000 example>", "exec", flags=flags)
    scope: dict[str, Any] = {"client": client}
    printed = io.StringIO()
    with redirect_stdout(printed):
        outcome = eval(code, scope)  # the spec's own example, as written
        if inspect.isawaitable(outcome):
            await outcome
    return scope, printed.getvalue()


def check_memory(memory: Any, attributes: list[str]) -> None:
    """Each named attribute of a result exists with the type the spec implies."""
    assert isinstance(memory, RetrievedMemory)
    expected: dict[str, Any] = {
        "text": str,
        "pattern_id": str,
        "confidence": float,
        "pathway": Pathway,
        "metadata": dict,
        "created_at": datetime,
        "last_accessed_at": (datetime, type(None)),
        "causal_links": list,
    }
    for name in attributes:
        assert isinstance(getattr(memory, name), expected[name]), (name, getattr(memory, name))
    assert memory.pattern_id == memory.thought_id and memory.text
    assert 0.0 <= memory.confidence <= 1.0
    assert memory.created_at is not None and memory.created_at.tzinfo is not None
    assert all(isinstance(link, CausalLink) for link in memory.causal_links)


def test_the_spec_has_these_four_examples(examples: list[str]) -> None:
    assert [block.splitlines()[0] for block in examples] == [
        'explanation = client.explain(query="What caused the outage?")',
        'results = client.retrieve(query="deploy schedule", min_confidence=0.7)',
        'results = client.retrieve(query="...", top_k=5)',
        'explanation = client.explain(query="What caused the outage?", level="debug")',
    ]


async def test_routing_example_prints_the_pathway_scores_dict(
    examples: list[str], client: Client | AsyncClient
) -> None:
    source = example(examples, 'explanation = client.explain(query="What caused the outage?")')
    scope, printed = await run_example(source, client)
    explanation = scope["explanation"]
    assert isinstance(explanation, Explanation)
    scores = json.loads(printed)
    assert set(scores) == {"exact", "energy", "attention"}
    assert all(isinstance(v, float) for v in scores.values())
    assert sum(scores.values()) == pytest.approx(1.0)
    assert scores == explanation.pathway_scores.model_dump()
    assert max(scores, key=scores.__getitem__) == explanation.pathway_selected


async def test_confidence_example_prints_results_above_the_threshold(
    examples: list[str], client: Client | AsyncClient
) -> None:
    source = example(
        examples, 'results = client.retrieve(query="deploy schedule", min_confidence=0.7)'
    )
    scope, printed = await run_example(source, client)
    results = scope["results"]
    assert isinstance(results, RetrievalResponse)
    lines = printed.splitlines()
    assert lines, "no memory reached confidence 0.7 for 'deploy schedule'"
    assert lines == [f"{r.confidence:.0%} — {r.text}" for r in results]
    for line in lines:
        percent, text = re.fullmatch(r"(\d+)% — (.+)", line).groups()  # type: ignore[union-attr]
        assert 70 <= int(percent) <= 100 and text in DEPLOY_MEMORIES
    confidences = [r.confidence for r in results]
    assert confidences == sorted(confidences, reverse=True) and min(confidences) >= 0.7
    for memory in results:
        check_memory(memory, ["confidence", "text"])


async def test_response_example_gives_every_listed_field(
    examples: list[str], client: Client | AsyncClient
) -> None:
    source = example(examples, 'results = client.retrieve(query="...", top_k=5)')
    scope, printed = await run_example(source, client)
    assert printed == ""
    assert isinstance(scope["results"], RetrievalResponse) and len(scope["results"]) <= 5
    listed = [
        name.strip()
        for line in source.splitlines()
        if line.startswith("# - ")
        for name in line[4:].split("(")[0].split(",")
    ]
    assert listed == [
        "text",
        "pattern_id",
        "confidence",
        "pathway",
        "metadata",
        "created_at",
        "last_accessed_at",
        "causal_links",
    ]
    # "..." has no words to match; the same fields on a query whose chain is traversed:
    scope, _ = await run_example(source.replace('"..."', '"What caused the outage?"'), client)
    results = scope["results"]
    assert 0 < len(results) <= 5
    for memory in results:
        check_memory(memory, listed)
    assert any(memory.causal_links for memory in results)


async def test_explain_walkthrough_prints_every_phase_timing(
    examples: list[str], client: Client | AsyncClient
) -> None:
    source = example(
        examples, 'explanation = client.explain(query="What caused the outage?", level="debug")'
    )
    scope, printed = await run_example(source, client)
    explanation = scope["explanation"]
    assert isinstance(explanation, Explanation) and explanation.level == "debug"
    assert explanation.candidates is not None
    shown = dict(line.split(": ", 1) for line in printed.splitlines())
    assert list(shown) == [
        "Intent",
        "Pathway",
        "Candidates activated",
        "After spreading",
        "After filtering",
        "Phase timings",
    ]
    assert shown["Intent"] == Intent.CAUSAL == explanation.intent
    assert shown["Pathway"] in set(Pathway) and shown["Pathway"] == explanation.pathway_selected
    for label, value in [
        ("Candidates activated", explanation.candidates_activated),
        ("After spreading", explanation.candidates_after_spread),
        ("After filtering", explanation.candidates_final),
    ]:
        assert isinstance(value, int) and shown[label] == str(value) and value >= 0
    timings = ast.literal_eval(shown["Phase timings"])
    assert tuple(timings) == PHASES
    assert all(isinstance(ms, float) and ms >= 0 for ms in timings.values())
    assert timings == explanation.phase_timings
    assert {r.thought_id for r in explanation.results} >= {"outage", "deploy-failed"}


def docstring_example() -> str:
    """The example of ``engrava_graph.client``'s docstring, from its first ``client.`` call
    (the lines before it import and build the client, given here as ``client``)."""
    code = textwrap.dedent(engrava_graph.client.__doc__.split("::", 1)[1])
    lines = code.strip().splitlines()
    start = next(i for i, line in enumerate(lines) if _START.match(line))
    return "\n".join(lines[start:]) + "\n"


async def test_the_client_docstring_example_prints_confident_memories(
    client: Client | AsyncClient,
) -> None:
    source = docstring_example()
    threshold = float(re.search(r"min_confidence=([\d.]+)", source).group(1))  # type: ignore[union-attr]
    scope, printed = await run_example(source, client)
    lines = printed.splitlines()
    assert lines, f"no memory reached confidence {threshold} for the docstring's query"
    assert lines == [f"{r.confidence:.0%} — {r.text}" for r in scope["results"]]
    assert all(r.confidence >= threshold and r.text in DEPLOY_MEMORIES for r in scope["results"])
