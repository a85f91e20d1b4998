"""Webhook targets: loopback, link-local, private and other non-public addresses are refused
(`webhook.private_address`) unless the operator allows them
(`SCORELEDGER_WEBHOOK_ALLOW_PRIVATE`); a URL's credentials are masked wherever it is listed.
Before, `http://127.0.0.1:6379/` was a valid endpoint (Redis logged "Possible SECURITY
ATTACK") and `webhooks list` printed `user:password@`."""

from __future__ import annotations

import pytest

from services.webhooks.usecases.admin import WebhookRefused, check_url, masked_url

REFUSED = [
    "http://127.0.0.1:6379/",
    "http://127.9.9.9/x",
    "http://localhost:8080/x",
    "http://LOCALHOST./x",
    "http://10.1.2.3/x",
    "http://172.16.0.1/x",
    "http://192.168.1.10/x",
    "http://169.254.169.254/latest/meta-data",
    "http://0.0.0.0/x",
    "http://100.64.0.1/x",
    "http://[::1]:8000/x",
    "http://[fe80::1]/x",
    "http://[fc00::5]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://2130706433/x",  # 127.0.0.1 as one number
    "http://0x7f.0.0.1/x",
]


@pytest.mark.parametrize("url", REFUSED)
def test_a_non_public_target_is_refused_unless_allowed(url: str) -> None:
    with pytest.raises(WebhookRefused) as refused:
        check_url(url)
    assert refused.value.rule == "webhook.private_address"
    assert check_url(url, allow_private=True) == url


@pytest.mark.parametrize(
    "url",
    ["https://hooks.example.org/in", "http://93.184.215.14:8080/x", "https://[2606:4700::1]/x"],
)
def test_a_public_target_is_taken(url: str) -> None:
    assert check_url(url) == url


def test_credentials_in_a_url_are_masked() -> None:
    assert masked_url("https://bot:s3cret@hooks.example.org/in?x=1") == (
        "https://***@hooks.example.org/in?x=1"
    )
    assert masked_url("https://bot@hooks.example.org/in") == "https://***@hooks.example.org/in"
    assert masked_url("https://hooks.example.org/in") == "https://hooks.example.org/in"
