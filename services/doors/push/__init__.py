"""Live push over SSE: one shared reader of the projector's change streams per process
(`hub.ChangeHub`) and the endpoints `GET /games/{id}/live`, `GET /games/live` (`routes`)."""
