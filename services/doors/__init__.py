"""The doors: every way in over the network (HTTP ingest and the Redis inbox, queries, push,
pages) and the workers that drive the use cases (projector, archiver, webhook sender); `asgi/`
holds the HTTP pieces they share. A door calls use cases and ports, never an adapter, the
composition root or another door. The command line (`services/cli/`) stands above them: it
starts them through `services/bootstrap/`."""
