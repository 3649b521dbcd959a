// A finished game's decision analysis on the final table (docs/analysis.md): asked for
// with one click (POST …/analysis), followed while an analysis worker runs it, then each
// seat's accuracy, a chart of each seat's expected loss over the game, and the mistakes
// and blunders with what was better. A click on one shows the position at that version
// as this page's seat may see it (GET /v1/games/{id}?version=N): its own hand when the
// decision was its own, the public table otherwise.

import { cardLabel, cardRow } from "./cards.js";
import { SEAT_COLORS } from "./chart.js";
import { el, keepTableRoles, labelledCell } from "./dom.js";
import { svg } from "./svg.js";

const PAD = { left: 40, right: 16, top: 12, bottom: 30 };

/** The seats' table's columns after the player's. */
const SEAT_COLUMNS = ["Accuracy", "Points lost", "Inaccuracies", "Mistakes", "Blunders", "Luck"];

/** How a move reads: "discarded 7♥", "drew from the stock", "went out, discarding Q♠". */
export function describeMove(action) {
  switch (action.type) {
    case "draw": return action.source === "stock" ? "drew from the stock" : "took the pile's top card";
    case "discard": return `discarded ${cardLabel(action.card)}`;
    case "go_out": return `went out, discarding ${cardLabel(action.discard)}`;
    default: return action.type;
  }
}

/** Each seat's expected loss summed over its decisions so far: `[[version, total], …]`,
 * from 0 at version 0. */
export function lossSeries(analysis, seats) {
  const out = Array.from({ length: seats }, () => [[0, 0]]);
  for (const d of analysis.decisions) {
    const line = out[d.seat];
    line.push([d.version, line.at(-1)[1] + d.regret]);
  }
  return out;
}

/** The chart of each seat's expected loss over the game (lower is better); `name(seat)`
 * names a line; `width`: its CSS pixels (320 to 640). */
export function lossChart(analysis, seats, name, width = 640) {
  const W = Math.round(Math.min(640, Math.max(320, width)));
  const H = Math.round(Math.max(190, W * 0.4));
  const series = lossSeries(analysis, seats);
  const last = Math.max(1, ...analysis.decisions.map((d) => d.version));
  const top = Math.max(1, ...series.map((s) => s.at(-1)[1]));
  const x = (v) => PAD.left + (v / last) * (W - PAD.left - PAD.right);
  const y = (loss) => H - PAD.bottom - (loss / top) * (H - PAD.top - PAD.bottom);
  const summary = series.map((s, seat) => `${name(seat)} ${s.at(-1)[1].toFixed(1)}`).join(", ");
  const chart = svg("svg", {
    viewBox: `0 0 ${W} ${H}`, role: "img", class: "chart loss-chart",
    "aria-label": `Expected points lost by each player's decisions over the game: ${summary}`,
  });
  for (const v of [0, top / 2, top]) {
    chart.append(
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, v.toFixed(0)));
  }
  chart.append(svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis" }, "move of the game"));
  series.forEach((points, seat) => {
    const color = SEAT_COLORS[seat % SEAT_COLORS.length];
    chart.append(svg("g", { class: "player", "data-seat": seat },
      svg("polyline", {
        points: points.map(([v, loss]) => `${x(v).toFixed(1)},${y(loss).toFixed(1)}`).join(" "),
        fill: "none", stroke: color, "stroke-width": 2.5, "stroke-linejoin": "round",
      })));
  });
  return chart;
}

/** The analysis in `box`: a progress line while it runs; once done, the seats' table,
 * the chart and the list of mistakes and blunders (`onPick(decision)` on a click). */
export function renderAnalysis(box, analysis, name, seats, onPick) {
  box.replaceChildren(el("h3", "Analysis"));
  if (analysis.status !== "done") {
    const share = Math.round(analysis.progress * 100);
    box.append(el("p", analysis.status === "queued" ? "Waiting for an analysis worker…"
      : `Analysing the decisions… ${share}%`, "analysis-progress"));
    return;
  }
  // reflowed on a phone (style.css): each seat a block of its columns' label: value pairs
  const table = el("table", "", "analysis-seats reflow");
  const head = el("tr");
  for (const h of ["Player", ...SEAT_COLUMNS]) {
    const th = el("th", h);
    th.scope = "col";
    head.append(th);
  }
  const body = el("tbody");
  table.append(el("thead"), body);
  table.tHead.append(head);
  for (const s of analysis.seats) {
    const row = el("tr");
    row.dataset.seat = s.seat;
    const who = el("th");
    who.scope = "row";
    const swatch = el("span", "", "swatch"); // the seat's colour, as its line in the chart
    swatch.style.background = SEAT_COLORS[s.seat % SEAT_COLORS.length];
    who.append(swatch, name(s.seat));
    const values = [s.accuracy === null ? "–" : s.accuracy.toFixed(1), s.expected_loss.toFixed(1),
      String(s.inaccuracies), String(s.mistakes), String(s.blunders), (s.luck > 0 ? "+" : "") + s.luck.toFixed(1)];
    row.append(who, ...values.map((v, i) => labelledCell(SEAT_COLUMNS[i], v)));
    body.append(row);
  }
  keepTableRoles(table);
  const figure = el("figure", "", "chart-box");
  box.append(table, figure);
  figure.append(lossChart(analysis, seats, name, figure.clientWidth - 16),
    el("figcaption", "Points each player's decisions lost on average against the best move, over the game (lower is better)."));
  const worst = analysis.decisions.filter((d) => d.judgement === "mistake" || d.judgement === "blunder");
  if (!worst.length) {
    box.append(el("p", "No mistake and no blunder in this game.", "analysis-clean"));
    return;
  }
  box.append(el("h4", "Mistakes and blunders"));
  const list = el("ol", "", "analysis-moves");
  for (const d of worst) {
    const item = el("li");
    item.dataset.version = d.version;
    const button = el("button", `${name(d.seat)} ${describeMove(d.action)}`);
    button.type = "button";
    button.addEventListener("click", () => onPick(d));
    item.append(el("span", d.judgement, `judgement ${d.judgement}`), " ", button,
      el("span", `: better ${describeMove(d.best)} (${d.regret.toFixed(1)} points)`));
    list.append(item);
  }
  box.append(list);
}

/** The position before decision `d`, as `view` (of that version) shows it. */
export function renderPosition(box, d, view, name) {
  box.replaceChildren(el("h4", `Before move ${d.version + 1}: ${name(d.seat)} to play`));
  const top = view.round.discard_top;
  box.append(el("p", `Round ${view.round.number}, ${view.round.wild_rank}s wild; the pile shows ${top ? cardLabel(top) : "nothing"}.`));
  if (view.you && view.you.seat === d.seat) {
    box.append(el("p", "Your hand then:"), cardRow(view.you.hand, { wildRank: view.round.wild_rank }));
  } else {
    box.append(el("p", `${name(d.seat)} held ${view.players[d.seat].hand_count} cards (hidden from this seat).`));
  }
  box.append(el("p", `Played: ${describeMove(d.action)}; better: ${describeMove(d.best)}.`));
}
