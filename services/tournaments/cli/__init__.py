"""The tournament commands of `scoreledger` and the demo's small tournament."""
