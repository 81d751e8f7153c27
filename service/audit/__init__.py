"""The audit trail: signing keys, receipts, sealed families, the arbiter's records, the log's
filters, and the game log (a Merkle tree over every game that is over)."""
