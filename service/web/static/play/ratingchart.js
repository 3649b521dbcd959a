// An account's rating over its rated games as an SVG line chart: one point per rated game
// (the rating after it), the deviation drawn as a band around the line (rating ±
// deviation), so a new account's wide, shrinking uncertainty reads at a glance. Drawn
// here, like the totals chart (chart.js): no chart library, nothing from another origin.

import { svg } from "./svg.js";

const PAD = { left: 48, right: 16, top: 14, bottom: 36 };

/** A tick step that gives about five ticks over `span`: 1, 2 or 5 times a power of 10
 * (at least `least`: the x axis counts whole games). */
function tickStep(span, least = 1) {
  const rough = Math.max(least, span / 5);
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
}

/** A rating as shown: whole points (the API's two decimals are noise to a reader). */
export const whole = (value) => String(Math.round(value));

/** One point in words, for its tooltip and the table fallback's caption. */
export function pointWords(point, number) {
  return `game ${number}: ${whole(point.rating)} ± ${whole(point.deviation)}, place ${point.place} of ${point.players}`;
}

/**
 * The chart of `points` (the history's, oldest first; at least one). `width`: the CSS
 * pixels it will be shown at, so that its text is drawn at its real size on a phone as
 * on a desktop. Its accessible name and description are its <title> and <desc>: what it
 * shows, the first and last rating, the lowest and highest; every point also has its own
 * <title> (a tooltip), and the page lists the points in a table beside it.
 */
export function ratingChart(points, { handle, preset, width = 640 }) {
  const W = Math.round(Math.min(720, Math.max(300, width)));
  const H = Math.round(Math.max(200, W * 0.42));
  const n = points.length;
  const lows = points.map((p) => p.rating - p.deviation);
  const highs = points.map((p) => p.rating + p.deviation);
  const step = tickStep(Math.max(...highs) - Math.min(...lows), 10);
  const bottom = Math.floor(Math.min(...lows) / step) * step;
  const top = Math.max(bottom + step, Math.ceil(Math.max(...highs) / step) * step);
  const plotW = W - PAD.left - PAD.right;
  // a single game sits in the middle; more spread from edge to edge
  const x = (i) => PAD.left + (n > 1 ? (i / (n - 1)) * plotW : plotW / 2);
  const y = (v) => H - PAD.bottom - ((v - bottom) / (top - bottom)) * (H - PAD.top - PAD.bottom);
  const f = (v) => v.toFixed(1);

  const ratings = points.map((p) => p.rating);
  const games = `${n} rated game${n === 1 ? "" : "s"}`;
  const chart = svg("svg", {
    viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart rating-chart",
    "aria-labelledby": "rating-chart-title rating-chart-desc",
  },
  svg("title", { id: "rating-chart-title" }, `${handle}'s ${preset} rating over ${games}`),
  svg("desc", { id: "rating-chart-desc" },
    `From ${whole(ratings[0])} after the first game to ${whole(ratings.at(-1))} ± ${whole(points.at(-1).deviation)} `
    + `after the last; lowest ${whole(Math.min(...ratings))}, highest ${whole(Math.max(...ratings))}. `
    + "The band around the line is the rating plus and minus its deviation."));

  for (let v = bottom; v <= top; v += step) {
    chart.append(
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: f(y(v)), y2: f(y(v)), class: "grid" }),
      svg("text", { x: PAD.left - 6, y: f(y(v) + 4), "text-anchor": "end", class: "tick" }, String(v)));
  }
  // games numbered from 1, ticked in whole steps that leave room for their labels
  const every = tickStep(n - 1, 1);
  for (let g = 1; g <= n; g += g === 1 && every > 1 ? every - 1 : every) {
    chart.append(svg("text", { x: f(x(g - 1)), y: H - PAD.bottom + 16, "text-anchor": "middle", class: "tick" }, String(g)));
  }
  chart.append(svg("text", { x: f(PAD.left + plotW / 2), y: H - 4, "text-anchor": "middle", class: "axis" }, "rated game"));

  // the band: along the upper edge, then back along the lower one (a single game's is a
  // short bar, since a polygon of one point has no width)
  if (n > 1) {
    const edge = [...highs.map((v, i) => `${f(x(i))},${f(y(v))}`), ...lows.map((v, i) => `${f(x(i))},${f(y(v))}`).reverse()];
    chart.append(svg("polygon", { points: edge.join(" "), class: "band" }));
    chart.append(svg("polyline", {
      points: ratings.map((v, i) => `${f(x(i))},${f(y(v))}`).join(" "), class: "line", fill: "none",
    }));
  } else {
    chart.append(svg("rect", { x: f(x(0) - 6), width: 12, y: f(y(highs[0])), height: f(y(lows[0]) - y(highs[0])), class: "band" }));
  }
  // the points themselves: fewer dots on a long history, where they would merge into a bar
  const radius = n > 120 ? 1.5 : n > 40 ? 2.5 : 3.5;
  chart.append(svg("g", { class: "points" }, points.map((p, i) => svg("circle", {
    cx: f(x(i)), cy: f(y(p.rating)), r: radius, class: "point", "data-game": p.game_id,
  }, svg("title", {}, pointWords(p, i + 1))))));
  return chart;
}
