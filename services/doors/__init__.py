"""The doors: every way in (HTTP ingest and the inbox, queries, push, pages, the CLI) and the workers
(projector, archiver, webhook sender) that drive the use cases. A door only calls use cases and ports."""
