"""Persistence: SQLite, PostgreSQL, migrations and the record forms."""
