"""The tournament commands: `simulate` (`scoreledger tournament simulate`, offline) and `demo`
(the small tournament `scoreledger demo` plays beside its games, over HTTP)."""
