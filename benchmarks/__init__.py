"""Measured comparisons; each script prints a table (see benchmarks/RESULTS.md)."""
