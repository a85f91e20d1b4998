"""What the tournament write doors (`ingest`, `ingest_club`) share: the path parameter, the
stream kind's answers (`DOOR`: 404 `tournament.not_found`, `written`, `failure`), the write
errors, and the organiser's write without a body. Source:
docs/decisions/0009-one-authorization-on-every-write.md (the token checked first, then the
`Idempotency-Key`); docs/decisions/0010-one-error-style.md (one error shape).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Path
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials

from domain.tournament.state import TournamentState
from services.doors.ingest.stream_writes import StreamDoor, token
from services.platform.problems import ProblemResponse, problem_responses
from services.tournaments.usecases.desk import TournamentDesk
from services.tournaments.usecases.stream import UnknownTournament
from services.usecases.idempotency import check_key

Tid = Annotated[str, Path(max_length=64, description="the tournament id")]
DOOR = StreamDoor("tournament_id", UnknownTournament, "tournament.not_found")
WRITE_ERRORS = problem_responses(401, 403, 404, 409, 413, 422)
"""The problems of a write with a body (413: too large)."""


async def organiser_write(
    desk: TournamentDesk,
    tournament_id: str,
    bearer: HTTPAuthorizationCredentials | None,
    idempotency_key: str | None,
    act: Callable[[str, str | None], Awaitable[TournamentState]],
) -> JSONResponse | ProblemResponse:
    """A write without a body, by the organiser: the token checked
    (`TournamentDesk.authorize`), the `Idempotency-Key` read, then `act(digest, key)` appends
    and returns the state reached. Answers 200 `{tournament_id, version}`, or the failure's
    problem (401/403/404/409/422)."""
    try:
        credential = await desk.authorize(tournament_id, token(bearer))
        key = check_key(idempotency_key)
        state = await act(credential, key)
    except DOOR.failures as error:
        return DOOR.failure(error)
    return DOOR.written(state)
