"""In-memory adapters of every port (tests, `make test-fast`); same contract as Redis."""
