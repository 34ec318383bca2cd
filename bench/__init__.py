"""Benchmarks and their fixtures, outside the production packages (not installed with them)."""
