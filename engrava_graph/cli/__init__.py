"""The ``engrava-graph`` command line: :data:`app` (in :mod:`.main`) and one module per area
(``demo``, ``dream``, ``explore``, ``serve``)."""

from engrava_graph.cli.main import app

__all__ = ["app"]
