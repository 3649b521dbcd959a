// Building SVG in the page: the card faces and the totals chart are drawn as elements
// (no image files, no markup strings), so they stay crisp at any size and need nothing
// from another origin.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element: `attrs` set as attributes (null/undefined skipped), then `children`
 * appended (strings become text). */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

/** A five-pointed star centred on (cx, cy) with outer radius r, as a path's `d`. */
export function starPath(cx, cy, r) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const radius = i % 2 ? r * 0.45 : r;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(2)} ${(cy + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return `M${points.join(" L")} Z`;
}
