"""The REST service (FastAPI) over engrava_graph."""
