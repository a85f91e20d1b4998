"""Seeded, rule-valid game simulator for Trickerion and Penumbra (`scoreledger simulate`).

`simulate_game(kind, seed, table)` yields one table's envelopes; `tables.TableSet` interleaves
many tables; `sinks` writes them to JSONL files, HTTP ingest or the Redis inbox at a rate.
"""
