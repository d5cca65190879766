# Real PostgreSQL and Redis processes for the cluster tests (skipped when not installed);
# rule coverage by the rules the referee really applies (CAROM_RULE_COVERAGE=1, docs/rules.md);
# pytester runs the coverage plugin on a small suite of its own (tests/test_rule_coverage.py).
pytest_plugins = ["tests.engines", "tests.rule_coverage", "pytester"]
