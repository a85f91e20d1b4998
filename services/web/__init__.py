"""The web scoreboard served by the query service: pages, static files, replay and export APIs
(`routes.web_router(reads)`, mounted by `services.bootstrap` after the live-push router so
`/games/live` is not taken for a game id)."""
