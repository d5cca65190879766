"""Benchmarks for ``make bench``: each module exposes ``run() -> list[str]``."""
