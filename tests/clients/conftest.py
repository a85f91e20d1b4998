"""The clients' tests reuse the CLI tests' `scoreledger serve` fixture (a free port, the clean
session Redis, terminated after the test)."""

from tests.cli.conftest import serve_process

__all__ = ["serve_process"]
