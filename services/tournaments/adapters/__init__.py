"""The tournament log's adapters: `redis` and `memory` (wired by `services.bootstrap` only)."""
