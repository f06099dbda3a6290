"""The API docs work offline: /docs (Swagger UI) and /redoc (ReDoc) render every operation in
headless Chromium with every request outside this machine refused, and the examples of the
OpenAPI schema validate against their own schemas."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import uvicorn

from api.app import create_app
from api.settings import ApiSettings
from engrava_graph.graph.connection import ConnectionInfo
from tests.headless import VIEWPORT, chromium
from tests.integration.api.conftest import api_settings

_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def test_every_example_validates_against_its_schema() -> None:
    schema = create_app(
        ApiSettings(_env_file=None, insecure_dev=True),  # type: ignore[call-arg]
        embedding_provider=None,
    ).openapi()
    components = schema["components"]["schemas"]
    checked = []
    for name, component in components.items():
        for example in component.get("examples", []):
            jsonschema.Draft202012Validator(
                {"$ref": f"#/components/schemas/{name}", "components": schema["components"]}
            ).validate(example)
            checked.append(name)
    for wanted in (
        "ThoughtCreate",
        "RetrieveRequest",
        "RetrievalResponse",
        "EdgeRecord-Input",
        "ErrorBody",
        "ThoughtRecord-Output",
        "DreamJob",
    ):
        assert wanted in checked, wanted


@pytest.fixture
async def base_url(connection: ConnectionInfo, provider: Any) -> AsyncIterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    app = create_app(api_settings(connection), embedding_provider=provider)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "the API did not start"
        await asyncio.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task


async def test_docs_render_offline(base_url: str, tmp_path: Path) -> None:
    playwright = pytest.importorskip(
        "playwright.async_api", reason="the browser tests need: pip install playwright"
    )
    executable = chromium()
    refused: list[str] = []

    async def local_only(route: Any) -> None:
        if route.request.url.startswith(base_url):
            await route.continue_()
        else:
            refused.append(f"{route.request.resource_type} {route.request.url}")
            await route.abort()

    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=executable, args=_ARGS)
        try:
            tab = await browser.new_page(viewport=VIEWPORT)
            tab.set_default_timeout(60_000)
            await tab.route("**/*", local_only)
            await tab.goto(f"{base_url}/docs")
            await tab.wait_for_selector(".opblock-summary")
            operations = await tab.locator(".opblock-summary-path").all_inner_texts()
            assert {"/v1/retrieve", "/v1/thoughts", "/v1/edges"} <= {
                o.replace("\u200b", "") for o in operations
            }
            await tab.locator(".opblock-summary", has_text="/v1/retrieve").first.click()
            await tab.wait_for_selector("text=Why did the deploy fail?")  # the body's example
            await tab.screenshot(path=str(tmp_path / "docs.png"))

            await tab.goto(f"{base_url}/redoc")
            await tab.wait_for_selector(
                "h2:has-text('Recall memories with the 10-phase retrieval cycle')"
            )
            await tab.screenshot(path=str(tmp_path / "redoc.png"))
        finally:
            await browser.close()
    # ReDoc's "API docs by Redocly" footer logo is the one outside request; nothing it needs
    assert [r for r in refused if not r.startswith("image ")] == [], refused
