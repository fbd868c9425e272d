"""Migration scripts."""
