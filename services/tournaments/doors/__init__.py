"""The tournament doors: HTTP writes, reads, live SSE and pages; each calls the use cases."""
