/**
 * Runnable example (the same steps as contracts/client/example.py): create a game with a chosen
 * token, check the next batch with a dry run (twice: the second answer is no duplicate, so the
 * first stored nothing), send an example game with a lost response and a retry, follow the
 * standings over SSE (with a resume) to the last seq, and print the final standings as one
 * JSON line.
 *
 *   node dist/example.js --base-url http://127.0.0.1:8000 [--log ../examples/penumbra-3p.jsonl] [--game-id ID]
 *
 * The game is created as `--game-id`, by default the file's game id with a fresh suffix: the
 * file's own id may be taken already (`make demo` publishes the same files under it). Event ids
 * stay the file's (unique per game), so a void's `voided_event_id` is found in the file.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Client, newWriteToken, Outbox, ProblemError, type Event, type StandingsFrame } from "./client.js";

function option(name: string, fallback?: string): string {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? process.argv[at + 1] : fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

/** A fetch that delivers the chosen POSTs to the service and then loses their answers. */
function losingFetch(lose: Set<number>): { fetch: typeof fetch; lost: () => number } {
  let posts = 0;
  let lost = 0;
  const lossy: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if (init?.method === "POST" && lose.has(++posts)) {
      await answer.arrayBuffer();
      lost++;
      throw new TypeError("fetch failed (response lost, simulated)");
    }
    return answer;
  };
  return { fetch: lossy, lost: () => lost };
}

async function followTo(client: Client, gameId: string, lastSeq: number, seen: StandingsFrame[]): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 120_000); // never wait forever
  for await (const frame of client.follow(gameId, null, stop.signal)) {
    seen.push(frame);
    break; // a dropped connection: resume below from the last id
  }
  for await (const frame of client.follow(gameId, seen.at(-1)?.id ?? null, stop.signal)) {
    seen.push(frame);
    if (frame.seq === lastSeq) break;
  }
  clearTimeout(timer);
  stop.abort();
  if (seen.at(-1)?.seq !== lastSeq) throw new Error(`the live standings did not reach seq ${lastSeq}`);
}

/** The outbox's next batch sent twice as a dry run: the second answer is no duplicate (the
 * first stored nothing); the outbox keeps the batch for the real send. */
async function checkDryRun(
  writer: Client,
  gameId: string,
  outbox: Outbox,
  batch: number,
): Promise<{ events: number; version: number; stored: boolean }> {
  const { body } = outbox.batch(batch);
  const first = await writer.append(gameId, body, true);
  const again = await writer.append(gameId, body, true);
  if (again.appended.some((e) => e.duplicate) || first.version !== again.version) {
    throw new Error("a dry run stored its events");
  }
  return { events: first.appended.length, version: first.version, stored: false };
}

async function main(): Promise<void> {
  const baseUrl = option("--base-url");
  const log = option("--log", new URL("../../examples/penumbra-3p.jsonl", import.meta.url).pathname);
  const batch = Number(option("--batch", "20"));
  const fileEvents = readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Event);
  const gameId = option("--game-id", `${fileEvents[0]!.game_id}-${randomBytes(3).toString("hex")}`);
  const events = fileEvents.map((event) => ({ ...event, game_id: gameId }));
  const lines = events.map((event) => JSON.stringify(event)); // serialised once, resent as they are
  const lastSeq = events.at(-1)!.seq;
  const outbox = new Outbox(gameId);
  for (const line of lines) outbox.add(line);

  // POSTs: 1 creates the game, 2 and 3 are dry runs, 4 is stored and its answer lost
  const lossy = losingFetch(new Set([4]));
  const writer = new Client(baseUrl, { writeToken: newWriteToken(), fetch: lossy.fetch });
  const reader = new Client(baseUrl);
  const first = outbox.batch(1); // the first event creates the game with the chosen token
  const answers = [await writer.append(gameId, first.body)];
  outbox.acknowledge(first.ids);
  const seen: StandingsFrame[] = [];
  const following = followTo(reader, gameId, lastSeq, seen);
  const dryRun = await checkDryRun(writer, gameId, outbox, batch);
  answers.push(...(await writer.send(outbox, batch)));
  await following;
  const final = await reader.standings(gameId);
  console.log(
    JSON.stringify({
      game_id: final.game_id,
      status: final.status,
      winner: final.winner,
      players: Object.fromEntries(final.players.map((p) => [p.player_id, { rank: p.rank, total: p.total }])),
      lost_responses: lossy.lost(),
      duplicates: answers.flatMap((a) => a.appended).filter((e) => e.duplicate).length,
      dry_run: dryRun,
      frames: seen.length,
      resumed: seen.length >= 2,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof ProblemError ? `error: ${error.message}` : error);
  process.exit(1);
});
