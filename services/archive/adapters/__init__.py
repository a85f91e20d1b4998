"""The archive adapters: PostgreSQL, a directory, memory, the hot tier (wired by the bootstrap)."""
