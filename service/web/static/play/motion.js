// The others' moves shown as moves: the card a player drew flies from the stock or the
// pile to their seat, the card they discarded from their seat to the pile. With
// `prefers-reduced-motion: reduce` nothing moves (the seat's last-move line still says
// what happened, and style.css drops its highlight animation too).

const reduced = matchMedia("(prefers-reduced-motion: reduce)");

/** Whether the reader's system asks for less motion. */
export function reducedMotion() {
  return reduced.matches;
}

/**
 * Fly `node` (a card element, not yet in the page) from the middle of `from` to the
 * middle of `to` in `ms`, then remove it. Resolves when it lands (at once when nothing
 * is to move). Fixed positioning keeps it out of the layout: nothing reflows, and a card
 * in flight never widens the page.
 */
export async function fly(node, from, to, ms) {
  if (!from || !to || ms <= 0 || reduced.matches || !node.animate) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  const width = Math.min(b.width || 48, 72);
  const height = width * 1.4;
  node.classList.add("flying");
  node.style.width = `${width}px`;
  node.style.height = `${height}px`;
  document.body.append(node);
  const at = (r) => `translate(${r.left + r.width / 2 - width / 2}px, ${r.top + r.height / 2 - height / 2}px)`;
  const flight = node.animate([{ transform: at(a), opacity: 0.6 }, { transform: at(b), opacity: 1 }],
    { duration: ms, easing: "ease-in-out" });
  try { await flight.finished; } catch { /* cancelled: the page moved on */ } finally { node.remove(); }
}
