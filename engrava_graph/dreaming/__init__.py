"""Dreaming: consolidation of observations into reflections, and memory hygiene."""
