"""Headless Chromium (Debian's ``chromium`` package) for the tests that look at a page, driven by
Playwright so a test can wait until the page has drawn instead of guessing a delay (Chromium's
own ``--screenshot`` fires before the graph canvas paints about half the time)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1200, "height": 900}
TIMEOUT_MS = 60_000

# True once the graph canvas shows ink and the ink did not change since the previous poll
# (the force layout has settled).
_CANVAS_SETTLED = """() => {
  const canvas = document.querySelector('canvas[data-testid="nvl-c2d-canvas"]');
  if (!canvas || !canvas.width) return false;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let ink = 0;
  for (let i = 3; i < pixels.length; i += 4) ink += pixels[i];
  const settled = ink > 0 && ink === window.__engravaLastInk;
  window.__engravaLastInk = ink;
  return settled;
}"""


def chromium() -> str:
    """The Chromium binary, or skip the test with the install line."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.skip("Chromium is not installed: apt-get install -y chromium")


async def render_graph_page(page: Path, png: Path) -> str:
    """Open ``page`` in headless Chromium, wait until its graph canvas has drawn and settled,
    save a 1200x900 screenshot to ``png`` and return the DOM.

    Raises:
        playwright.async_api.TimeoutError: nothing was drawn within a minute.
    """
    playwright = pytest.importorskip(
        "playwright.async_api", reason="the browser tests need: pip install playwright"
    )
    executable = chromium()
    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=executable, args=_ARGS)
        try:
            tab = await browser.new_page(viewport=VIEWPORT)
            await tab.goto(page.resolve().as_uri())
            await tab.wait_for_function(_CANVAS_SETTLED, polling=500, timeout=TIMEOUT_MS)
            await tab.screenshot(path=str(png))
            return await tab.content()
        finally:
            await browser.close()
