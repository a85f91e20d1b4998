"""A tiny third game that lives only in the tests: registered by the test, it proves that a game
is one unit (its contracts, its ruleset, its metadata, one registry line) and that no production
file names the games. Source: docs/architecture/adding-a-game.md ("a game is one unit").
"""
