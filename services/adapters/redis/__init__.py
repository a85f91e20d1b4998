"""Redis adapters of the ports (`services.ports`): the event log (append Lua), write credentials,
dead letters, projections and checkpoints (apply Lua), change notices."""
