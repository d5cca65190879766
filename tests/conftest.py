# Real PostgreSQL and Redis processes for the cluster tests (skipped when not installed).
pytest_plugins = ["tests.engines"]
