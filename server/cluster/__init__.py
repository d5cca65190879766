"""Cluster mode (issue 15, docs/cluster.md): several ``carom serve`` nodes sharing one PostgreSQL
(everything durable) and one Redis (presence, the room directory, room leases).

Nothing here is imported by the single-process server unless ``--redis`` is given, so ``carom
serve`` and ``carom play`` need neither engine.
"""
