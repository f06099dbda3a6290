"""The main job on real input: a LoCoMo conversation as an agent's memory, end to end."""
