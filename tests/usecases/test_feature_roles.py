"""The features' roles start themselves (services/bootstrap/roles.py `FEATURE_ROLES`): a role
runs when `Roles` asks for it and the root built its parts, and not otherwise; the archiver
and the webhooks role are entered through their doors packages' `run_role`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest

from services.bootstrap.roles import FEATURE_ROLES, RoleEntry, Roles


class _Doors:
    """A doors package that records the parts it ran on and whether its block is open."""

    ROLE = "archiver"

    def __init__(self) -> None:
        self.ran: list[object] = []
        self.open = False

    @asynccontextmanager
    async def run_role(self, parts: object, settings: object) -> AsyncIterator[None]:
        self.ran.append((parts, settings))
        self.open = True
        try:
            yield
        finally:
            self.open = False


SERVICE: Any = SimpleNamespace(settings="the settings")


@pytest.mark.parametrize(
    ("roles", "parts", "runs"),
    [
        (Roles(archiver=True), "the seal", True),
        (Roles(archiver=False), "the seal", False),
        (Roles(archiver=True), None, False),  # no archive configured
    ],
)
async def test_a_role_runs_when_asked_and_built(roles: Roles, parts: object, runs: bool) -> None:
    doors = _Doors()
    entry: RoleEntry[Any] = RoleEntry(doors, lambda service: parts)
    async with AsyncExitStack() as stack:
        await entry.enter(stack, SERVICE, roles)
        assert doors.open is runs
    assert doors.ran == ([("the seal", "the settings")] if runs else [])
    assert doors.open is False  # ended with the stack


def test_the_archiver_and_the_webhooks_role_are_started_in_this_order() -> None:
    assert [entry.doors.ROLE for entry in FEATURE_ROLES] == ["archiver", "webhooks"]
    assert all(hasattr(Roles(), entry.doors.ROLE) for entry in FEATURE_ROLES)
