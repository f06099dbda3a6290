"""``python -m engrava_graph.cli``: the ``engrava-graph`` command line."""

from engrava_graph.cli.main import app

if __name__ == "__main__":
    app()
