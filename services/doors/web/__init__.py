"""The web scoreboard served by the query service: pages, static files, replay and export APIs
(`routes.web_router(reads, settings)`, mounted by `services.bootstrap` after the live-push
router so `/games/live` is not taken for a game id), and, in a split deployment
(`SCORELEDGER_INGEST_URL` set), the router forwarding the page's writes to ingest
(`forward.forward_router(settings)`)."""
