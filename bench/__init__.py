"""gruft's benchmarks: `gruft bench`, the load generator, profiles and experiments."""
