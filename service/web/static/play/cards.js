// Cards as the API writes them (rank then suit: "7H", "TS", "JK") turned into card faces:
// one SVG per card, drawn here (corner indices, pips or a framed letter, a joker face),
// so they are crisp at any size and the page loads no image. A wild card (a joker, or
// of the round's wild rank) carries a gold star badge and a gold edge, and says so in
// its accessible name ("7 of hearts, wild").

import { starPath, svg } from "./svg.js";

const SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const RED = new Set(["H", "D"]);
const INK = { red: "#c62828", black: "#1d1d1d", joker: "#6a1b9a" };

// Each suit as one path in a 100 x 100 box (the club's leaves are arcs), so a pip is a
// single element at any size and does not depend on the fonts installed.
const SUIT_PATHS = {
  S: "M50 2C62 22 98 40 98 64C98 80 86 90 72 90C64 90 58 86 54 80C55 90 60 96 68 100L32 100C40 96 45 90 46 80C42 86 36 90 28 90C14 90 2 80 2 64C2 40 38 22 50 2Z",
  H: "M50 96C40 84 2 62 2 32C2 14 15 4 28 4C39 4 47 11 50 20C53 11 61 4 72 4C85 4 98 14 98 32C98 62 60 84 50 96Z",
  D: "M50 2L88 50L50 98L12 50Z",
  C: "M29 27a21 21 0 1 0 42 0a21 21 0 1 0-42 0M5 58a21 21 0 1 0 42 0a21 21 0 1 0-42 0"
    + "M53 58a21 21 0 1 0 42 0a21 21 0 1 0-42 0M40 52a10 10 0 1 0 20 0a10 10 0 1 0-20 0"
    + "M46 58C46 78 40 92 30 100L70 100C60 92 54 78 54 58Z",
};

// Where the pips of A to 10 sit on the 100 x 140 face; those below the middle are
// drawn upside down, as on a printed card.
const L = 33, M = 50, R = 67;
const PIPS = {
  A: [[M, 70]],
  2: [[M, 30], [M, 110]],
  3: [[M, 30], [M, 70], [M, 110]],
  4: [[L, 30], [R, 30], [L, 110], [R, 110]],
  5: [[L, 30], [R, 30], [M, 70], [L, 110], [R, 110]],
  6: [[L, 30], [R, 30], [L, 70], [R, 70], [L, 110], [R, 110]],
  7: [[L, 30], [R, 30], [M, 50], [L, 70], [R, 70], [L, 110], [R, 110]],
  8: [[L, 30], [R, 30], [M, 50], [L, 70], [R, 70], [M, 90], [L, 110], [R, 110]],
  9: [[L, 30], [R, 30], [L, 56.7], [R, 56.7], [M, 70], [L, 83.3], [R, 83.3], [L, 110], [R, 110]],
  T: [[L, 30], [R, 30], [M, 43.3], [L, 56.7], [R, 56.7], [L, 83.3], [R, 83.3], [M, 96.7], [L, 110], [R, 110]],
};

/** Whether `card` is wild this round: a printed joker, or of the round's wild rank. */
export function isWild(card, wildRank) {
  return card === "JK" || (wildRank != null && card[0] === wildRank);
}

/** "7♥", "10♠", "Joker": how a card reads in running text (the move log, buttons). */
export function cardLabel(card) {
  if (card === "JK") return "Joker";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SYMBOLS[card[1]];
}

/** "7 of hearts", "queen of spades", "joker": a card's name for screen readers. */
export function cardName(card) {
  if (card === "JK") return "joker";
  return `${RANK_NAMES[card[0]] || card[0]} of ${SUIT_NAMES[card[1]]}`;
}

function pip(suit, x, y, size, color) {
  const flip = y > 70 ? ` rotate(180 ${x} ${y})` : "";
  return svg("path", {
    d: SUIT_PATHS[suit], fill: color,
    transform: `${flip} translate(${x - size / 2} ${y - size / 2}) scale(${size / 100})`.trim(),
  });
}

/** The rank and suit in the top-left corner, and again upside down bottom-right. */
function corners(rank, suit, color) {
  const index = (flip) => svg("g", flip ? { transform: "rotate(180 50 70)" } : {},
    suit
      ? svg("text", { x: 13, y: 25, "font-size": rank === "10" ? 19 : 22, "text-anchor": "middle", fill: color, class: "index" }, rank)
      : svg("path", { d: starPath(13, 17, 9), fill: color }),
    suit ? pip(suit, 13, 37, 13, color) : null);
  return [index(false), index(true)];
}

function middle(card, color) {
  const [rank, suit] = card;
  if (PIPS[rank]) {
    const size = rank === "A" ? 44 : 20;
    return PIPS[rank].map(([x, y]) => pip(suit, x, y, size, color));
  }
  // a court card: a framed letter between two pips
  return [
    svg("rect", { x: 24, y: 18, width: 52, height: 104, rx: 4, fill: RED.has(suit) ? "#fcebe8" : "#eceff1", stroke: color, "stroke-width": 1.5 }),
    pip(suit, 50, 36, 18, color),
    svg("text", { x: 50, y: 86, "font-size": 46, "text-anchor": "middle", fill: color, class: "court" }, rank),
    pip(suit, 50, 106, 18, color),
  ];
}

function jokerMiddle() {
  return [
    svg("path", { d: starPath(50, 60, 30), fill: INK.joker }),
    svg("path", { d: starPath(50, 60, 13), fill: "#f2c14e" }),
    svg("text", { x: 50, y: 114, "font-size": 15, "text-anchor": "middle", fill: INK.joker, class: "index", "letter-spacing": 1 }, "JOKER"),
  ];
}

/** The face of `card` as an SVG, its accessible name left to the element around it. */
export function cardFace(card, wild = false) {
  const joker = card === "JK";
  const color = joker ? INK.joker : RED.has(card[1]) ? INK.red : INK.black;
  const rank = joker ? null : card[0] === "T" ? "10" : card[0];
  return svg("svg", { viewBox: "0 0 100 140", "aria-hidden": "true", focusable: "false", class: "face" },
    svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 8, fill: "#fffdf7",
      stroke: wild ? "#e0a800" : "#8a8a8a", "stroke-width": wild ? 5 : 2 }),
    joker ? corners(null, null, color) : corners(rank, card[1], color),
    joker ? jokerMiddle() : middle(card, color),
    wild ? svg("g", { class: "wild-badge" },
      svg("circle", { cx: 86, cy: 14, r: 11, fill: "#f2c14e", stroke: "#7a5a00", "stroke-width": 1.5 }),
      svg("path", { d: starPath(86, 14.5, 8), fill: "#3b2a00" })) : null);
}

/** The back of a card (the stock, an opponent's hand). */
export function cardBack() {
  return svg("svg", { viewBox: "0 0 100 140", "aria-hidden": "true", focusable: "false", class: "back" },
    svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 8, fill: "#1f4e8c", stroke: "#0d2a52", "stroke-width": 2 }),
    svg("rect", { x: 9, y: 9, width: 82, height: 122, rx: 5, fill: "#2a62ad", stroke: "#dfe8f7", "stroke-width": 2 }),
    svg("path", { d: "M50 24L80 70L50 116L20 70Z", fill: "none", stroke: "#dfe8f7", "stroke-width": 2 }),
    svg("path", { d: "M50 50L64 70L50 90L36 70Z", fill: "#dfe8f7" }));
}

/** One card as an element (a button when `onClick` is given), wild cards marked.
 * `label` replaces the accessible name (e.g. "discard 7 of hearts"). */
export function cardElement(card, { wildRank = null, onClick = null, label = "" } = {}) {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = "card";
  el.dataset.card = card;
  const wild = isWild(card, wildRank);
  const name = `${cardName(card)}${wild ? ", wild" : ""}`;
  if (wild) el.classList.add("wild");
  if (card === "JK" || RED.has(card[1])) el.classList.add("red");
  el.append(cardFace(card, wild));
  el.setAttribute("aria-label", label ? `${label}${wild ? ", wild" : ""}` : name);
  el.title = label || name;
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", onClick);
  } else el.setAttribute("role", "img");
  return el;
}

/** A card face down, as an element (a button when `onClick` is given). */
export function backElement({ onClick = null, label = "a card, face down" } = {}) {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = "card back";
  el.append(cardBack());
  el.setAttribute("aria-label", label);
  el.title = label;
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", onClick);
  } else el.setAttribute("role", "img");
  return el;
}

/** A row of cards (a meld, deadwood), face up. */
export function cardRow(cards, options = {}) {
  const row = document.createElement("span");
  row.className = "cards";
  for (const card of cards) row.append(cardElement(card, options));
  return row;
}
