"""Live delivery: who waits for which game, the streams' messages, presence, and the one writer
thread per worker that writes every stream after its catch-up."""
