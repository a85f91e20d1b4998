"""The httpx webhook transport: answers with their `Retry-After`, and every failure to get an
answer (a timeout, a refused connection, a bad URL) as a `TransportError`; a target that is or
resolves to a non-public address is not contacted unless allowed; no redirect is followed."""

from __future__ import annotations

import asyncio
import socket
import time
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from services.webhooks.adapters.http import HttpxTransport, retry_after_s
from services.webhooks.ports import Answer, TransportError
from tests.redis_fixture import free_port
from tests.trickle import elapsed_s, trickling_receiver


def test_retry_after_takes_seconds_or_an_http_date() -> None:
    now = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_s("7", now) == 7.0
    assert retry_after_s("Tue, 01 Dec 2026 12:00:30 GMT", now) == 30.0
    assert retry_after_s("Tue, 01 Dec 2026 11:00:00 GMT", now) == 0.0  # past: no wait
    assert retry_after_s("soon", now) is None
    assert retry_after_s(None, now) is None


async def test_an_answer_carries_its_status_and_retry_after() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(429, headers={"retry-after": "3"})

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    transport = HttpxTransport(1.0, client, allow_private=True)
    got = await transport.post("http://x.test/h", b"{}", {"webhook-id": "msg_1"})
    assert got == Answer(429, 3.0)
    assert seen[0].headers["webhook-id"] == "msg_1"
    assert seen[0].content == b"{}"
    await transport.aclose()


async def test_no_answer_is_a_transport_error() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    mock = httpx.AsyncClient(transport=httpx.MockTransport(slow))
    timeouts = HttpxTransport(1.0, mock, allow_private=True)
    with pytest.raises(TransportError, match="ReadTimeout"):
        await timeouts.post("http://x.test/h", b"{}", {})
    real = HttpxTransport(2.0, allow_private=True)
    with pytest.raises(TransportError, match="ConnectError"):  # nothing listens there
        await real.post(f"http://127.0.0.1:{free_port()}/h", b"{}", {})
    with pytest.raises(TransportError):
        await real.post("http://[not-a-host/h", b"{}", {})
    await real.aclose()


async def test_a_trickling_receiver_is_cut_at_the_whole_request_deadline() -> None:
    # One header line every 0.5 s: each read is short, so httpx's per-read timeout of 1 s
    # never fires; only a deadline on the whole request ends it (20 s of trickle otherwise).
    transport = HttpxTransport(1.0, allow_private=True)
    with trickling_receiver(every_s=0.5, lines=40) as url:
        began = time.monotonic()
        with pytest.raises(TransportError, match="deadline"):
            await transport.post(url, b"{}", {})
        took = elapsed_s(began)
    await transport.aclose()
    assert took < 2.5, took


def _public_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, str]) -> None:
    """The running loop's resolver answering `answers` (host -> address) and nothing else."""
    loop = asyncio.get_running_loop()

    async def getaddrinfo(host: str, port: int, **_: Any) -> list[Any]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "unknown")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[host], port))]

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)


async def test_a_non_public_target_is_never_contacted(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(204)

    _public_dns(
        monkeypatch, {"hooks.example.test": "10.0.0.5", "public.example.test": "93.184.215.14"}
    )
    transport = HttpxTransport(1.0, httpx.AsyncClient(transport=httpx.MockTransport(answer)))
    for url in (
        "http://127.0.0.1:6379/",
        "http://localhost/h",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/h",
        "http://hooks.example.test/h",  # a public-looking name resolving to 10.0.0.5
    ):
        with pytest.raises(TransportError, match=r"webhook\.private_address"):
            await transport.post(url, b"{}", {})
    assert seen == []
    assert await transport.post("http://public.example.test/h", b"{}", {}) == Answer(204, None)
    allowed = HttpxTransport(1.0, transport.client, allow_private=True)
    assert await allowed.post("http://127.0.0.1:6379/", b"{}", {}) == Answer(204, None)
    assert seen == ["http://public.example.test/h", "http://127.0.0.1:6379/"]
    await transport.aclose()


async def test_a_redirect_is_an_answer_never_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(307, headers={"location": "http://127.0.0.1:6379/"})

    _public_dns(monkeypatch, {"public.example.test": "93.184.215.14"})
    transport = HttpxTransport(1.0, httpx.AsyncClient(transport=httpx.MockTransport(answer)))
    assert await transport.post("http://public.example.test/h", b"{}", {}) == Answer(307, None)
    assert seen == ["http://public.example.test/h"]
    await transport.aclose()
