// Player colours: the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008), told
// apart with the common forms of colour blindness; by seat, so a player keeps a colour all game.
// Colours mark swatches, borders and chart lines only; text keeps the page's ink colour.
export const PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#BBBBBB"];

/** The colour of a player (`seat` 1..8; falls back to the order given). */
export function playerColor(player, index = 0) {
  const seat = Number(player.seat) || index + 1;
  return PALETTE[(seat - 1) % PALETTE.length];
}

/** Colour per player id for a list of players. */
export function colorMap(players) {
  return Object.fromEntries(players.map((p, i) => [p.player_id, playerColor(p, i)]));
}
