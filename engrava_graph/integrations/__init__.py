"""Adapters for agent frameworks (the `langchain` extra) and prompt formatting helpers."""
