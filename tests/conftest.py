# Real PostgreSQL and Redis processes for the cluster tests (skipped when not installed, an error
# under CAROM_NO_SKIP=1), and the guards that keep a green run honest (tests/strict.py).
pytest_plugins = ["tests.strict", "tests.engines"]
