"""Use cases: record (the one write path), project (feed batch -> projections) and the read
models. They know no HTTP, FastStream or Redis: only the ports (`services.ports`)."""
