"""Leagues in one place: the league stream's ports, use cases, adapters and doors (its events
are `contracts/league.py`, its pure fold, standings and ratings `domain/league/`).

* `ports/`: `log` (`LeagueLog`, each league's side log), `index` (`LeagueIndex`: the leagues
  holding a tournament);
* `usecases/`: `stream` (create a league, add a tournament or a game, standings and ratings at
  any seq), `follow` (leagues follow their tournaments' results), `links` (a tournament's
  leagues), `rating` (the openskill model behind the domain's `RatingModel`);
* `adapters/`: `redis`, `memory` (the log), `redis_index`, `memory_index` (the index), wired by
  `services.bootstrap`;
* `doors/`: HTTP `ingest` (writes, ingest role), `query` (reads), `web` (the league page),
  `web_players` (the player page); the package mounts them (`mount_query`, ...);
* `cli`: `scoreledger league simulate`; `simulator`: a simulated league, offline.
"""
