"""Tournaments in one place: the tournament stream's port, use cases, adapters and doors (its
events are `contracts/tournament.py`, its pure fold, seating and standings `domain/tournament/`).

* `ports/`: `log` (`TournamentLog`, each tournament's side log, append with expected
  version), `approvals` (`ApprovalSchedule`: when a reported result falls due);
* `usecases/`: `stream` (record, seat, standings at any seq), `desk` (the organiser's writes,
  each authorized), `access` (who may write), `rulings` (a table's result), `tables` (one game
  per seated table), `keys` (judge and table tokens derived from the organiser's digest),
  `timer` (auto-approval), `view` (the summary the doors answer);
* `adapters/`: `redis`, `memory` (the log), `redis_approvals`, `memory_approvals` (the
  schedule), wired by `services.bootstrap`;
* `doors/`: HTTP `ingest` and `ingest_club` (writes, ingest role), `query` (reads), `push` (the
  live SSE), `web` (the pages and the room screen's QR code), `ingest_approvals` (the
  auto-approval timer's task); the package mounts them (`mount_query`, ...);
* `cli/`: `command` (`scoreledger tournament simulate`), `demo` (the demo's small tournament);
* `simulator`: a whole simulated tournament, offline.
"""
