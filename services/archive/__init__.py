"""The archive in one place: sealed (final, quiet) games leave Redis for a cold tier and are
read back byte for byte (docs/decisions/0013-archive-cold-tier.md).

* `ports/`: `cold` (`Archive`: the sealed games' store), `hot` (`HotGames`: a whole game as
  Redis holds it, snapshotted, removed and restored at once);
* `usecases/`: `seal` (a quiet final game leaves Redis, losing nothing), `tiered` (reads fall
  through to the archive; a write to an archived game restores it first);
* `adapters/`: `postgres` (production, with its schema in `postgres_migrations`), `directory`
  (gzip files, the embedded default), `memory`; `redis_hot` and `memory_hot` (the hot tier),
  wired by `services.bootstrap`;
* `doors/`: `archiver`, the archiver role's sealing passes.
"""
