"""Values a tournament derives from its organiser digest: valid, stable, distinct, and
unguessable without the digest (another digest gives others)."""

from __future__ import annotations

from services.tournaments.usecases.keys import judge_of, judge_token, table_game_id, table_token
from services.usecases.authorize import check_token_format, digest

D1, D2 = digest("organiser-token-one-0123456789abcdef"), digest("organiser-token-two-0123456789ab")


def test_table_game_ids_are_valid_game_ids_even_for_the_longest_tournament_id() -> None:
    long_id = "t" * 64
    game_id = table_game_id(D1, long_id, 50, 500)
    assert len(game_id) <= 64
    assert game_id.startswith("t" * 40 + ".r50t500.")
    import re

    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", game_id)
    assert table_game_id(D1, "cup", 1, 2) == table_game_id(D1, "cup", 1, 2)
    assert table_game_id(D1, "cup", 1, 2) != table_game_id(D2, "cup", 1, 2)
    assert table_game_id(D1, "cup", 1, 2) != table_game_id(D1, "cup", 2, 1)


def test_tokens_are_valid_write_tokens_and_differ_by_digest_and_purpose() -> None:
    game = table_game_id(D1, "cup", 1, 1)
    tokens = {table_token(D1, game), table_token(D2, game), judge_token(D1, "cup", "jo")}
    assert len(tokens) == 3
    for token in tokens:
        check_token_format(token, "token")  # raises if not 32..256 URL-safe characters
        assert len(token) == 43


def test_judge_of_finds_only_judges_in_office() -> None:
    token = judge_token(D1, "cup", "jo")
    assert judge_of(D1, "cup", {"jo": "Jo", "max": "Max"}, token) == "jo"
    assert judge_of(D1, "cup", {"max": "Max"}, token) is None
    assert judge_of(D2, "cup", {"jo": "Jo"}, token) is None
    assert judge_of(D1, "cup2", {"jo": "Jo"}, token) is None
