"""``engrava-graph serve``: run the REST service (``api/``) with uvicorn.

The library does not import the server package: this command loads it by name when it runs.

Configuration comes from the environment and ``.env`` (see docs/api.md). Without an API key the
command refuses to start unless ``--insecure-dev`` is given on the command line (the environment
cannot switch authentication off). A configuration problem (a variable that does not parse or
validate, no key) is one paragraph on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Annotated

import typer

GRACEFUL_SHUTDOWN_SECONDS = 10
CONFIG_ERROR_EXIT = 2
"""The exit code of a configuration problem (as for a command-line usage error)."""


def _exit(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(CONFIG_ERROR_EXIT)


def _url(host: str, port: int) -> str:
    """``http://host:port``, an IPv6 address in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    env_file: Annotated[Path, typer.Option(
        help="Settings file, read after the environment.")] = Path(".env"),
    insecure_dev: Annotated[bool, typer.Option(
        "--insecure-dev",
        help="Serve WITHOUT API keys: every caller may read and write every namespace. "
             "For a development machine only.")] = False,
) -> None:
    """Serve the REST API (OpenAPI at /docs) until interrupted."""
    import uvicorn

    server = import_module("api.app")
    try:
        settings = import_module("api.settings").load_settings(env_file,
                                                               insecure_dev=insecure_dev)
    except ValueError as error:
        raise _exit(str(error)) from None
    import_module("api.logs").configure_logging(settings.log_level)
    try:
        app = server.create_app(settings)
    except ValueError as error:  # no API key and no --insecure-dev
        raise _exit(str(error)) from None
    typer.echo(f"engrava-graph API on {_url(host, port)} (docs at /docs)")
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning",
                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS, server_header=False)
