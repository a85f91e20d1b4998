"""Adapters: one implementation of every port per backend (`redis/`, `memory/`)."""
