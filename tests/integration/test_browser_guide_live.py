"""The Browser style and guide loaded the way docs/exploring.md says, in the real Neo4j Browser
(served by the test's Neo4j at its HTTP port) in headless Chromium: ``:style`` colours a causal
chain (Observation blue, CAUSED_BY red, captioned with its confidence), ``:guide`` opens with
this server's port, and one guide query, run from the guide, lists the test's namespace."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engrava_graph.browser_assets import asset_server, browser_commands
from engrava_graph.core import Neo4jEngravaCore
from engrava_graph.graph.connection import ConnectionInfo
from engrava_graph.graph.executor import GraphExecutor
from engrava_graph.graph.registry import cypher
from engrava_graph.model.enums import EdgeType, ThoughtType
from engrava_graph.model.records import EdgeRecord, ThoughtRecord
from tests.browser_files import grass_text, parse_grass
from tests.headless import VIEWPORT, chromium

_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TIMEOUT_MS = 60_000


@pytest.fixture
def assets_port() -> Iterator[int]:
    server = asset_server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def _browser_url(executor: GraphExecutor) -> str:
    """The Browser of the server the tests use (its advertised HTTP address), on ``localhost``."""
    rows = await executor.read(cypher("hygiene/http_address"))
    if not rows or not rows[0]["address"]:
        pytest.skip("this Neo4j serves no HTTP, so no Neo4j Browser")
    port = str(rows[0]["address"]).rsplit(":", 1)[-1]
    return f"http://localhost:{port}/browser/"


async def _run(tab: object, command: str) -> None:
    """Type ``command`` into Browser's editor and run it."""
    await tab.click(".monaco-editor")  # type: ignore[attr-defined]
    await tab.keyboard.press("Control+A")  # type: ignore[attr-defined]
    await tab.keyboard.type(command)  # type: ignore[attr-defined]
    await tab.click('[data-testid="editor-Run"]')  # type: ignore[attr-defined]


async def test_style_and_guide_load_in_neo4j_browser(
    store: Neo4jEngravaCore,
    connection: ConnectionInfo,
    executor: GraphExecutor,
    assets_port: int,
    tmp_path: Path,
) -> None:
    playwright = pytest.importorskip(
        "playwright.async_api", reason="the browser tests need: pip install playwright"
    )
    executable = chromium()
    url = await _browser_url(executor)
    effect = await store.create_thought(
        ThoughtRecord(
            thought_type=ThoughtType.OBSERVATION,
            essence="The deploy failed",
            content="The deploy failed at 3pm",
            source="test",
        )
    )
    cause = await store.create_thought(
        ThoughtRecord(
            thought_type=ThoughtType.OBSERVATION,
            essence="Config PR removed DATABASE_URL",
            content="Config PR removed DATABASE_URL",
            source="test",
        )
    )
    await store.create_edge(
        EdgeRecord(
            from_thought_id=effect.thought_id,
            to_thought_id=cause.thought_id,
            edge_type=EdgeType.CAUSED_BY,
            confidence=0.85,
        )
    )
    rules = parse_grass(grass_text())
    commands = browser_commands(assets_port)

    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=executable, args=_ARGS)
        try:
            tab = await browser.new_page(viewport=VIEWPORT)
            tab.set_default_timeout(TIMEOUT_MS)
            await tab.goto(url)
            await tab.fill('[data-testid="boltaddress"]', connection.uri)
            await tab.fill('[data-testid="username"]', connection.user)
            await tab.fill('[data-testid="password"]', connection.password)
            await tab.click('[data-testid="connect"]')
            # Browser shows its start frame before Bolt is up: wait for the connected frame, or
            # the first command can meet "No connection found".
            await tab.wait_for_selector("text=connected as user")

            await _run(tab, commands["style"])
            await tab.wait_for_selector("text=node.Thought")  # the style frame lists the rules
            await _run(
                tab,
                f"MATCH p = (:Thought {{namespace: '{store.namespace}'}})"
                f"-[:CAUSED_BY]->() RETURN p",
            )
            await tab.wait_for_selector("svg g.relationship text")
            await tab.screenshot(path=str(tmp_path / "browser-style.png"))
            fills = await tab.eval_on_selector_all(
                "svg g.node circle.b-outline", "els => els.map(e => e.getAttribute('fill'))"
            )
            assert fills and set(fills) == {rules["node.Observation"]["color"]}
            edge = await tab.eval_on_selector(
                "svg g.relationship path.b-outline", "e => e.getAttribute('fill')"
            )
            assert edge == rules["relationship.CAUSED_BY"]["color"]
            caption = await tab.text_content("svg g.relationship text")
            assert caption == "CAUSED_BY 0.85"

            await _run(tab, commands["guide"])
            guide = tab.locator("pre.runnable", has_text="RETURN t.namespace AS namespace")
            await tab.locator("pre.runnable", has_text=commands["style"]).wait_for()
            await guide.first.click()  # a runnable block goes into the editor
            await tab.click('[data-testid="editor-Run"]')
            row = tab.locator('[data-testid="frame"] table td', has_text=store.namespace)
            await row.first.wait_for()
            cells = await tab.locator(
                '[data-testid="frame"] table tr', has_text=store.namespace
            ).first.inner_text()
            assert re.search(rf"\"{store.namespace}\"\s+2\b", cells), cells  # name, thoughts
            await tab.screenshot(path=str(tmp_path / "browser-guide.png"))
        finally:
            await browser.close()
