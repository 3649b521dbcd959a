// Cards as the API writes them (rank then suit: "7H", "TS", "JK") turned into elements.

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);

/** Whether `card` is wild this round: a printed joker, or of the round's wild rank. */
export function isWild(card, wildRank) {
  return card === "JK" || (wildRank != null && card[0] === wildRank);
}

/** "7♥", "10♠", "Joker": how a card reads on the page. */
export function cardLabel(card) {
  if (card === "JK") return "Joker";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

/** One card as an element (a button when `onClick` is given), wild cards marked. */
export function cardElement(card, { wildRank = null, onClick = null, title = "" } = {}) {
  const el = document.createElement(onClick ? "button" : "span");
  el.className = "card";
  el.dataset.card = card;
  el.textContent = cardLabel(card);
  if (card === "JK" || RED.has(card[1])) el.classList.add("red");
  if (isWild(card, wildRank)) {
    el.classList.add("wild");
    el.title = "wild";
  }
  if (title) el.title = title;
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", onClick);
  }
  return el;
}

/** A row of cards (a meld, a hand, deadwood). */
export function cardRow(cards, options = {}) {
  const row = document.createElement("span");
  row.className = "cards";
  for (const card of cards) row.append(cardElement(card, options));
  return row;
}
