"""Serve the Neo4j Browser assets of ``cypher/browser/`` (the GraSS style and the guide) over HTTP.

Neo4j Browser loads a style with ``:style <url>`` and a guide with ``:guide <url>`` (or
``:play <url>``) only from hosts in the server setting
``browser.remote_content_hostname_allowlist``, which allows ``localhost`` by default, and
fetches them cross-origin: it first sends a CORS preflight (``OPTIONS``), which the server
answers ``204`` with the CORS headers, and the responses carry ``Access-Control-Allow-Origin: *``.
The guide is served with its ``:style`` command pointing at the port the server listens on.
"""

from __future__ import annotations

from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import cast

from engrava_graph.graph.registry import cypher_root

DEFAULT_PORT = 7480
STYLE_FILE = "engrava.grass"
GUIDE_FILE = "guide.html"


def assets_dir() -> Path:
    """The directory holding the style and the guide (installed package data or the repo)."""
    return cypher_root() / "browser"


def guide_html(port: int) -> bytes:
    """The guide, its ``:style`` command pointing at an asset server on ``port``."""
    text = (assets_dir() / GUIDE_FILE).read_text(encoding="utf-8")
    return text.replace(
        browser_commands(DEFAULT_PORT)["style"], browser_commands(port)["style"]
    ).encode("utf-8")


class _AssetHandler(SimpleHTTPRequestHandler):
    """Static files from :func:`assets_dir`, readable cross-origin (preflight answered), the
    guide adapted to the server's port, access log off."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def do_OPTIONS(self) -> None:  # noqa: N802 - the http.server naming
        """Answer a CORS preflight: 204, any origin, GET/HEAD, the headers asked for."""
        self.send_response(204)
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
        self.send_header(
            "Access-Control-Allow-Headers",
            self.headers.get("Access-Control-Request-Headers") or "*",
        )
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - the http.server naming
        """The guide with this server's port in its ``:style`` command; other files as they
        are."""
        if self.path.split("?", 1)[0] != f"/{GUIDE_FILE}":
            super().do_GET()
            return
        body = guide_html(cast(ThreadingHTTPServer, self.server).server_port)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

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
