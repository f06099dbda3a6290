"""``engrava-graph serve``: run the REST service (``api/``) with uvicorn.

Configuration comes from the environment and ``.env`` (see ``api/settings.py``). Without an API
key the command refuses to start unless ``--insecure-dev`` is given on the command line (the
environment cannot switch authentication off).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

GRACEFUL_SHUTDOWN_SECONDS = 10


def _exit(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(1)


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

    from api.app import create_app
    from api.logs import configure_logging
    from api.settings import ApiSettings

    try:
        settings = ApiSettings(_env_file=env_file, insecure_dev=insecure_dev)
    except ValidationError as error:
        raise _exit(f"invalid settings:\n{error}") from error
    configure_logging(settings.log_level)
    try:
        app = create_app(settings)
    except ValueError as error:
        raise _exit(str(error)) from error
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning",
                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS, server_header=False)
