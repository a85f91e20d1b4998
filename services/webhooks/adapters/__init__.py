"""The webhook adapters: Redis, memory, the httpx transport (wired by `services.bootstrap`)."""
