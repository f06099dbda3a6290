"""Serve the Neo4j Browser assets of ``cypher/browser/`` (the GraSS style and the guide) over HTTP.

Neo4j Browser loads a style with ``:style <url>`` and a guide with ``:guide <url>`` (or
``:play <url>``) only from hosts in the server setting
``browser.remote_content_hostname_allowlist``, which allows ``localhost`` by default, and
fetches them cross-origin, so the responses carry ``Access-Control-Allow-Origin: *``.
"""

from __future__ import annotations

from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from engrava_graph.graph.registry import cypher_root

DEFAULT_PORT = 7480
STYLE_FILE = "engrava.grass"
GUIDE_FILE = "guide.html"


def assets_dir() -> Path:
    """The directory holding the style and the guide (installed package data or the repo)."""
    return cypher_root() / "browser"


class _AssetHandler(SimpleHTTPRequestHandler):
    """Static files from :func:`assets_dir`, readable cross-origin, access log off."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Keep the terminal quiet."""


def asset_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    """An HTTP server of the assets, bound but not yet serving (call ``serve_forever()``).

    Args:
        host: the interface; the default keeps it on loopback.
        port: the TCP port; 0 picks a free one (read it from ``server.server_address``).

    Raises:
        OSError: the port is taken.
    """
    handler = partial(_AssetHandler, directory=str(assets_dir()))
    return ThreadingHTTPServer((host, port), handler)


def browser_commands(port: int) -> dict[str, str]:
    """The Neo4j Browser commands that load the style and open the guide from a server on
    ``port`` (``localhost``: the host Browser's default allowlist admits)."""
    base = f"http://localhost:{port}"
    return {"style": f":style {base}/{STYLE_FILE}", "guide": f":guide {base}/{GUIDE_FILE}"}
