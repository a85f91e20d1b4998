"""`SCORELEDGER_INBOX_INTEGRATIONS` (docs/decisions/0019-hostile-input-at-every-door.md (hostile integrations)): comma- or space-separated
names `[a-z0-9][a-z0-9-]{0,31}`, at most 64, each once; a bad list is refused naming the field,
as `scoreledger serve` prints it. Each name's stream is `sl:inbox:<name>`."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from services.adapters.redis.keys import Keys
from services.cli.startup import settings_failure
from services.platform.settings import IngestSettings, ServiceSettings


def test_the_list_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORELEDGER_INBOX_INTEGRATIONS", " table-7, app-2 0\tz-,")
    assert IngestSettings().inbox_integrations == ("table-7", "app-2", "0", "z-")
    assert ServiceSettings().inbox_integrations == ("table-7", "app-2", "0", "z-")
    monkeypatch.setenv("SCORELEDGER_INBOX_INTEGRATIONS", "")
    assert IngestSettings().inbox_integrations == ()
    monkeypatch.delenv("SCORELEDGER_INBOX_INTEGRATIONS")
    assert IngestSettings().inbox_integrations == ()
    names = ",".join(f"t{i}" for i in range(64))
    monkeypatch.setenv("SCORELEDGER_INBOX_INTEGRATIONS", names)
    assert len(IngestSettings().inbox_integrations) == 64
    assert Keys(16).integration_inbox("table-7") == "sl:inbox:table-7"


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ("table-7,Table_8", "integration name 'Table_8' is not [a-z0-9][a-z0-9-]{0,31}"),
        ("-table", "integration name '-table' is not"),
        ("sl:inbox", "integration name 'sl:inbox' is not"),
        ("a*", "integration name 'a*' is not"),
        ("x" * 33, f"integration name '{'x' * 33}' is not"),
        ("t1 t2,t1", "integration name 't1' is listed twice"),
        (",".join(f"t{i}" for i in range(65)), "65 integrations listed, at most 64"),
    ],
)
def test_a_bad_list_is_refused_naming_the_field(
    monkeypatch: pytest.MonkeyPatch, names: str, message: str
) -> None:
    monkeypatch.setenv("SCORELEDGER_INBOX_INTEGRATIONS", names)
    with pytest.raises(ValidationError) as raised:
        IngestSettings()
    (error,) = raised.value.errors()
    assert error["loc"] == ("inbox_integrations",)
    assert message in error["msg"]
    line = settings_failure(raised.value).message
    assert line.startswith(
        f"invalid settings: SCORELEDGER_INBOX_INTEGRATIONS: Value error, {message}"
    )


def test_a_long_bad_name_is_quoted_cut_to_40_characters() -> None:
    with pytest.raises(ValidationError) as raised:
        IngestSettings(inbox_integrations=("A" * 500,))
    assert f"'{'A' * 40}' is not" in raised.value.errors()[0]["msg"]
    with pytest.raises(ValidationError, match="a list of integration names"):
        IngestSettings(inbox_integrations=[7])
