"""The physics worker pool (separate processes)."""
