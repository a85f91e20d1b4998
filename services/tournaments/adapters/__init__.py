"""The tournament ports' adapters on Redis and in memory (wired by `services.bootstrap` only)."""
