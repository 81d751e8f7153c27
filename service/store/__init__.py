"""The game store: eventsourcing's recorders and mapper as gruft uses them, the per-worker
repository, the one follower of the log, freshness, health and backups."""
