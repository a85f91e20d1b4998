"""The league rating model: `openskill`'s Plackett-Luce (Weng-Lin), behind the domain's
`RatingModel` protocol. Kept here, not in the domain: `domain/` imports only the stdlib,
pydantic and contracts, and the model is the one choice a replay depends on besides the
stream, so it is injected (the same model, the same defaults, gives the same history).
Defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (openskill's).
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from domain.league.ratings import Rating


class OpenSkillModel:
    """`domain.league.ratings.RatingModel` on openskill's Plackett-Luce; each player is a team
    of one, places become ranks (shared places tie)."""

    def __init__(self) -> None:
        self._model = PlackettLuce()

    def initial(self) -> Rating:
        """mu 25, sigma 25/3."""
        return Rating(self._model.mu, self._model.sigma)

    def rate(self, before: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
        """The ratings after one game (see the protocol)."""
        teams = [[self._model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
        rated = self._model.rate(teams, ranks=[float(p) for p in places])
        return [Rating(float(team[0].mu), float(team[0].sigma)) for team in rated]
