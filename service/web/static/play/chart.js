// The running totals over the rounds as a line chart: one line per player, named at its
// end, drawn as SVG here (a picture that stays readable at 11 rounds and 8 players, where
// a row of numbers per player did not).

import { svg } from "./svg.js";

/** One colour per seat, told apart on the paper background (and not only by hue: the
 * lines are also named at their ends and in the legend). */
export const SEAT_COLORS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457"];

const PAD = { left: 40, right: 112, top: 14, bottom: 34 };

/** The running totals of each player: `[0, after round 1, after round 2, …]`. */
export function runningTotals(players) {
  return players.map((p) => {
    let sum = 0;
    return [0, ...p.round_scores.map((s) => (sum += s))];
  });
}

/** A tick step that gives about five ticks up to `max`: 1, 2 or 5 times a power of 10. */
function tickStep(max) {
  const rough = Math.max(1, max / 5);
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
}

/** A name cut to fit beside the plot (the legend and the table carry it whole). */
function short(text) {
  return text.length > 10 ? `${text.slice(0, 9)}…` : text;
}

/** Move the end labels apart (at least `gap` apart, in order) without leaving the plot. */
function spread(ys, gap, low, high) {
  const order = ys.map((y, i) => [y, i]).sort((a, b) => a[0] - b[0]);
  const placed = order.map(([y]) => y);
  for (let k = 1; k < placed.length; k += 1) placed[k] = Math.max(placed[k], placed[k - 1] + gap);
  const over = placed.length ? placed[placed.length - 1] - high : 0;
  if (over > 0) for (let k = 0; k < placed.length; k += 1) placed[k] -= over;
  for (let k = 0; k < placed.length; k += 1) placed[k] = Math.max(placed[k], low + k * gap);
  const out = new Array(ys.length);
  order.forEach(([, i], k) => { out[i] = placed[k]; });
  return out;
}

/**
 * The chart of `view.players`' running totals; `name(seat)` is how a player is named;
 * `width`: the CSS pixels it will be shown at (320 to 640), so that its text is drawn at
 * its real size on a phone as on a desktop. Lower is better in Three-Thirteen, so the
 * leader is the lowest line.
 */
export function totalsChart(view, name, width = 640) {
  const W = Math.round(Math.min(640, Math.max(320, width)));
  const H = Math.round(Math.max(210, W * 0.45));
  const totals = runningTotals(view.players);
  const rounds = Math.max(0, ...totals.map((t) => t.length - 1));
  const max = Math.max(1, ...totals.flat());
  const step = tickStep(max);
  const top = Math.ceil(max / step) * step;
  const x = (r) => PAD.left + (rounds ? (r / rounds) * (W - PAD.left - PAD.right) : 0);
  const y = (v) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const summary = view.players.map((p, i) => `${name(p.seat)} ${totals[i].at(-1)}`).join(", ");
  const chart = svg("svg", {
    viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart",
    "aria-label": `Running totals after ${rounds} round${rounds === 1 ? "" : "s"}: ${summary}`,
  });
  for (let v = 0; v <= top; v += step) {
    chart.append(
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, String(v)));
  }
  for (let r = 0; r <= rounds; r += 1) {
    chart.append(svg("text", { x: x(r), y: H - PAD.bottom + 16, "text-anchor": "middle", class: "tick" }, String(r)));
  }
  chart.append(svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 4, "text-anchor": "middle", class: "axis" }, "after round"));
  const ends = spread(totals.map((t) => y(t.at(-1))), 15, PAD.top + 4, H - PAD.bottom);
  view.players.forEach((p, i) => {
    const color = SEAT_COLORS[p.seat % SEAT_COLORS.length];
    const points = totals[i].map((v, r) => `${x(r).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    const line = svg("g", { class: "player", "data-seat": p.seat },
      svg("polyline", { points, fill: "none", stroke: color, "stroke-width": 3, "stroke-linejoin": "round" }),
      totals[i].map((v, r) => svg("circle", { cx: x(r), cy: y(v), r: 3.5, fill: color })),
      svg("text", { x: x(rounds) + 8, y: ends[i] + 4, fill: color, class: "label" },
        `${short(name(p.seat))} ${totals[i].at(-1)}`));
    chart.append(line);
  });
  return chart;
}
