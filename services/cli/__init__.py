"""The `scoreledger` command line: `score`, `serve`, `publish`, `export`, `demo`."""
