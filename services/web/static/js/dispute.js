// The dispute view: the standings with and without one event side by side
// (`GET /games/{id}/dispute/{event_id}`), and the referee's outcome recorded as a new event
// (`game.event_voided` or `game.score_corrected`, reason and referee required) through ingest
// `POST /games/{id}/events` with the game's write token, on the page's own origin: in a split
// deployment the query service forwards it to ingest (services/web/forward.py). Nothing is
// rewritten.
import { describe, label, t } from "./i18n.js";
import { getJSON } from "./page.js";

const TOKEN_KEY = (gameId) => `scoreledger.token.${gameId}`;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The dispute panel of one game; `afterWrite()` runs once an event was recorded. */
export class DisputeView {
  constructor(gameId, afterWrite) {
    this.gameId = gameId;
    this.afterWrite = afterWrite;
    this.row = null;
    this.panel = document.getElementById("dispute-panel");
    this.form = document.getElementById("dispute-form");
    this.form.elements.token.value = localStorage.getItem(TOKEN_KEY(gameId)) || "";
    document.getElementById("void-button").addEventListener("click", () => this.voidEvent());
    document.getElementById("correct-button").addEventListener("click", () => this.correct());
  }

  /** Open the panel for a timeline row and show the comparison. */
  async open(row, standings, ctx) {
    this.row = row;
    this.panel.hidden = false;
    document.getElementById("dispute-seq").textContent = row.seq;
    document.getElementById("dispute-event").textContent = ctx ? describe(row, ctx) : row.type;
    this.message("");
    this.fillSelects(standings);
    const body = await getJSON(`/games/${encodeURIComponent(this.gameId)}/dispute/${row.event_id}`);
    const error = document.getElementById("dispute-error");
    error.hidden = !body.error;
    error.textContent = body.error ? `${t("cannot_void")}: ${body.error.message}` : "";
    document.getElementById("void-button").disabled = Boolean(body.error);
    this.renderCompare(body);
    this.panel.scrollIntoView({ block: "nearest" });
  }

  fillSelects(standings) {
    const players = this.form.elements.player;
    players.replaceChildren(...standings.players.map((p) => new Option(p.name, p.player_id)));
    const categories = standings.players.length ? standings.players[0].breakdown : [];
    this.form.elements.category.replaceChildren(...categories.map((c) => new Option(label(c), c.key, false, c.key === "correction")));
  }

  renderCompare(body) {
    const table = document.getElementById("dispute-compare");
    const head = el("tr");
    head.append(el("th", t("player")), el("th", t("with_event"), "num"), el("th", t("without_event"), "num"), el("th", "Δ", "num"));
    table.tHead.replaceChildren(head);
    const without = Object.fromEntries((body.without?.players || []).map((p) => [p.player_id, p]));
    table.tBodies[0].replaceChildren(...body.with.players.map((p) => {
      const tr = el("tr");
      tr.dataset.player = p.player_id;
      const w = without[p.player_id];
      const d = body.delta[p.player_id];
      tr.append(el("td", p.name), el("td", `${p.total} (${p.rank})`, "num with"),
        el("td", w ? `${w.total} (${w.rank})` : "—", "num without"), el("td", d ? (d > 0 ? `+${d}` : String(d)) : "0", "num"));
      return tr;
    }));
  }

  message(text, isError = false) {
    const node = document.getElementById("dispute-message");
    node.hidden = !text;
    node.textContent = text;
    node.classList.toggle("error", isError);
  }

  /** Append one event (type, schema version, payload) after the game's current version. */
  async record(type, schemaVersion, payload) {
    if (!this.form.reportValidity()) return;
    const { reason, referee, token } = this.form.elements;
    const events = await getJSON(`/games/${encodeURIComponent(this.gameId)}/timeline`);
    const seq = events.events.length + 1;
    const envelope = {
      event_id: uuid(), game_id: this.gameId, seq, type, schema_version: schemaVersion,
      occurred_at: new Date().toISOString(), actor: referee.value.trim(),
      causation_id: this.row.event_id,
      payload: { ...payload, reason: reason.value.trim(), referee: referee.value.trim() },
    };
    try {
      await getJSON(`/games/${encodeURIComponent(this.gameId)}/events`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token.value.trim()}` },
        body: JSON.stringify([envelope]),
      });
    } catch (error) {
      this.message(`${error.status}: ${error.message}`, true);
      return;
    }
    localStorage.setItem(TOKEN_KEY(this.gameId), token.value.trim());
    this.message(`${t("saved")}${seq}`);
    this.afterWrite(seq);
  }

  voidEvent() {
    return this.record("game.event_voided", 1, { voided_event_id: this.row.event_id });
  }

  correct() {
    const { player, amount, category } = this.form.elements;
    return this.record("game.score_corrected", 2, {
      player_id: player.value, amount: Number(amount.value), category: category.value,
    });
  }
}
