"""`GET /games` over both tiers: live games first, then the final ones most recently updated
first, Redis's and the archive's merged, one paged list with one total, each game once."""

from __future__ import annotations

import json

from tests.archive.conftest import Stack, example_logs


def renamed(lines: list[bytes], game_id: str) -> list[bytes]:
    out = []
    for line in lines:
        event = json.loads(line)
        event["game_id"] = game_id
        out.append(json.dumps(event).encode())
    return out


async def test_one_paged_list_over_redis_and_the_archive(stack: Stack) -> None:
    games = example_logs()
    archived = sorted(games)  # both example games end; sealed below
    before = (await stack.http.get("/games?limit=10")).json()["games"]
    updated = {g["game_id"]: g["updated_at"] for g in before}
    assert await stack.seal() == {"sealed": len(archived)}
    live_lines = renamed(games[archived[0]][:5], "zz-live")  # 5 events: still in progress
    await stack.publish("zz-live", live_lines)
    await stack.wait_final("zz-live", 5)

    finals = sorted(archived, key=lambda g: updated[g], reverse=True)
    seen = []
    for page in (1, 2, 3):
        answer = (await stack.http.get(f"/games?limit=1&page={page}")).json()
        assert answer["total"] == 3
        assert answer["next_page"] == (page + 1 if page < 3 else None)
        seen += [(g["game_id"], g["status"], g["version"]) for g in answer["games"]]
    assert seen == [
        ("zz-live", "in_progress", 5),
        (finals[0], "final", len(games[finals[0]])),
        (finals[1], "final", len(games[finals[1]])),
    ]
    whole = (await stack.http.get("/games?limit=10")).json()
    assert [g["game_id"] for g in whole["games"]] == [s[0] for s in seen]
    assert (await stack.http.get("/games?limit=2&page=3")).json()["games"] == []

    # a final game not sealed yet: merged with the archived ones by update
    final_hot = renamed(games[archived[1]], "aa-final-hot")
    await stack.publish("aa-final-hot", final_hot)
    await stack.wait_final("aa-final-hot", len(final_hot))
    listed = (await stack.http.get("/games?limit=10")).json()
    assert listed["total"] == 4
    ids = [g["game_id"] for g in listed["games"]]
    assert ids[0] == "zz-live"
    assert sorted(ids) == sorted(["zz-live", "aa-final-hot", *archived])
    paged = []
    for page in (1, 2, 3, 4):
        paged += [
            g["game_id"]
            for g in (await stack.http.get(f"/games?limit=1&page={page}")).json()["games"]
        ]
    assert paged == ids
    assert ids[1] == "aa-final-hot"  # updated last of the final ones
