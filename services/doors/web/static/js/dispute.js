// The dispute view: the standings with and without one event side by side
// (`GET /games/{id}/dispute/{event_id}`), and the referee's outcome recorded as a new event
// (`game.event_voided` or `game.score_corrected`, reason and referee required) through ingest
// `POST /games/{id}/events` with the game's write token, on the page's own origin: in a split
// deployment the query service forwards it to ingest (services/doors/web/forward.py). Nothing is
// rewritten. The correction form starts on the disputed event's player; every write is asked
// for first, in words naming the totals it changes, and written only on "Confirm"; the end of a
// game (`game.ended`) is voided only through its own "Reopen the game" choice, which sends
// `reopens_game: true` (contracts/common.py EventVoided). The result is announced beside the
// buttons (`role=status`, `aria-live`).
import { describe, label, t, unitName } from "./i18n.js";
import { el, getJSON } from "./page.js";

const TOKEN_KEY = (gameId) => `scoreledger.token.${gameId}`;

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The player an event is about: the payload's player field, else the player it moved most. */
export function disputedPlayer(row) {
  const payload = row.payload || {};
  for (const key of ["player_id", "owner_id", "performer_id"]) if (payload[key]) return payload[key];
  const moved = Object.entries(row.delta || {}).filter(([, n]) => n);
  moved.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  return moved.length ? moved[0][0] : null;
}

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => String(values[key] ?? ""));
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** The dispute panel of one game; `afterWrite()` runs once an event was recorded. */
export class DisputeView {
  constructor(gameId, afterWrite) {
    this.gameId = gameId;
    this.afterWrite = afterWrite;
    this.row = null;
    this.compare = null;
    this.pending = null; // the write waiting for "Confirm": { kind, type, version, payload }
    this.panel = document.getElementById("dispute-panel");
    this.form = document.getElementById("dispute-form");
    this.confirmBox = document.getElementById("dispute-confirm");
    this.form.elements.token.value = localStorage.getItem(TOKEN_KEY(gameId)) || "";
    document.getElementById("void-button").addEventListener("click", () => this.ask("void"));
    document.getElementById("reopen-button").addEventListener("click", () => this.ask("reopen"));
    document.getElementById("correct-button").addEventListener("click", () => this.ask("correct"));
    document.getElementById("confirm-button").addEventListener("click", () => this.confirm());
    document.getElementById("cancel-button").addEventListener("click", () => {
      this.closeConfirm();
      this.message(t("cancelled"));
    });
  }

  /** Open the panel for a timeline row and show the comparison. */
  async open(row, standings, ctx) {
    this.row = row;
    this.ctx = ctx;
    this.compare = null;
    this.panel.hidden = false;
    this.closeConfirm();
    document.getElementById("dispute-seq").textContent = row.seq;
    document.getElementById("dispute-event").textContent = ctx ? describe(row, ctx) : row.type;
    this.message("");
    this.fillSelects(standings, disputedPlayer(row));
    const body = await getJSON(`/games/${encodeURIComponent(this.gameId)}/dispute/${row.event_id}`);
    if (this.row !== row) return;
    this.compare = body;
    this.unit = unitName(body.with.score_unit, body.with.score_unit_label);
    const error = document.getElementById("dispute-error");
    error.hidden = !body.error;
    error.textContent = body.error ? `${t("cannot_void")}: ${body.error.message}` : "";
    const reopens = Boolean(body.reopens_game);
    document.getElementById("void-button").hidden = reopens;
    document.getElementById("reopen-button").hidden = !reopens;
    document.getElementById("reopen-hint").hidden = !reopens;
    document.getElementById("void-button").disabled = Boolean(body.error);
    document.getElementById("reopen-button").disabled = Boolean(body.error);
    this.renderCompare(body);
    this.panel.scrollIntoView({ block: "nearest" });
  }

  fillSelects(standings, selected) {
    const players = this.form.elements.player;
    players.replaceChildren(...standings.players.map((p) => new Option(p.name, p.player_id, false, p.player_id === selected)));
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
    node.textContent = text;
    node.classList.toggle("error", isError);
  }

  /** The totals a void changes, in words ("Oren: 45 → 38"), from the comparison. */
  voidChanges() {
    const without = Object.fromEntries((this.compare?.without?.players || []).map((p) => [p.player_id, p]));
    return (this.compare?.with.players || [])
      .filter((p) => without[p.player_id] && without[p.player_id].total !== p.total)
      .map((p) => `${p.name}: ${p.total} → ${without[p.player_id].total} ${this.unit}`);
  }

  /** Ask for confirmation of one write (`kind`: void, reopen, correct), naming what it changes. */
  ask(kind) {
    if (!this.form.reportValidity() || !this.compare) return;
    const row = this.row;
    let text, changes, pending;
    if (kind === "correct") {
      const { player, amount, category } = this.form.elements;
      const n = Number(amount.value);
      const who = this.compare.with.players.find((p) => p.player_id === player.value);
      text = fill(t("confirm_correct"), {
        player: who?.name ?? player.value, amount: signed(n), unit: this.unit,
        category: category.selectedOptions[0]?.textContent ?? category.value,
        from: who?.total ?? "?", to: who ? who.total + n : "?",
      });
      changes = [];
      pending = { type: "game.score_corrected", version: 2, payload: { player_id: player.value, amount: n, category: category.value } };
    } else {
      const reopens = kind === "reopen";
      text = fill(t(reopens ? "confirm_reopen" : "confirm_void"), { seq: row.seq, event: describe(row, this.ctx || { names: {} }) });
      changes = this.voidChanges();
      pending = { type: "game.event_voided", version: 1, payload: { voided_event_id: row.event_id, ...(reopens ? { reopens_game: true } : {}) } };
    }
    this.pending = { kind, ...pending };
    document.getElementById("dispute-confirm-text").textContent = text;
    const list = document.getElementById("dispute-confirm-changes");
    const items = kind === "correct" ? [] : [el("li", changes.length ? t("totals_after") : t("no_total_change"), "muted"), ...changes.map((c) => el("li", c))];
    list.replaceChildren(...items);
    this.confirmBox.hidden = false;
    this.confirmBox.dataset.kind = kind;
    this.message("");
    this.confirmBox.scrollIntoView({ block: "nearest" });
    document.getElementById("confirm-button").focus({ preventScroll: true });
  }

  closeConfirm() {
    this.pending = null;
    this.confirmBox.hidden = true;
  }

  /** Write the confirmed event; the result goes beside the buttons. */
  async confirm() {
    const pending = this.pending;
    if (!pending) return;
    this.closeConfirm();
    this.message(t("recording"));
    await this.record(pending.type, pending.version, pending.payload);
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
}
