/* Scores page: per-round table, totals, winner and a running-totals chart in inline SVG.
   It reads the one scores shape, table.summary.MatchSummary as JSON: entrants by name (or
   team), rounds with points and running totals keyed by entrant. */
"use strict";
(() => {
  const { el, show, api, live } = UNO;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  // Distinct hues plus a dash pattern per line: the chart never relies on colour alone.
  const LINES = [["#d62828", ""], ["#1d4ed8", "6 3"], ["#15803d", "2 3"], ["#a16207", "8 3 2 3"],
    ["#7c3aed", "1 2"], ["#0f766e", "10 4"], ["#be185d", "4 4"], ["#334155", "12 3 3 3"],
    ["#ea580c", "3 6"], ["#4d7c0f", "6 2 2 2"]];

  function svg(tag, attrs, text) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  const entrants = (sc) => sc.entrants || [];
  const running = (sc) => (sc.rounds || []).map((r) => entrants(sc).map((e) => (r.totals || {})[e] || 0));

  function chart(sc) {
    const box = $("chart");
    const players = entrants(sc);
    const rows = running(sc);
    if (!rows.length) { box.replaceChildren(el("p", { class: "muted", text: "No round scored yet." })); $("legend").replaceChildren(); return; }
    const W = 360, H = 220, L = 40, R = 10, T = 14, B = 28;
    const maxY = Math.max(1, sc.target || 0, ...rows.flat());
    const x = (i) => L + (rows.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (rows.length - 1));
    const y = (v) => T + (H - T - B) * (1 - v / maxY);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "aria-labelledby": "chart-title" });
    root.append(svg("title", { id: "chart-title" }, "Running totals per round"));
    for (let k = 0; k <= 4; k++) {
      const v = Math.round((maxY * k) / 4);
      root.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid-line" }));
      root.append(svg("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }, String(v)));
    }
    if (sc.target) root.append(svg("line", { x1: L, x2: W - R, y1: y(sc.target), y2: y(sc.target), class: "target-line" }));
    rows.forEach((_, i) => root.append(svg("text", { x: x(i), y: H - 8, "text-anchor": "middle", class: "axis" }, `R${i + 1}`)));
    players.forEach((name, p) => {
      const [stroke, dash] = LINES[p % LINES.length];
      const pts = rows.map((row, i) => `${x(i)},${y(row[p] || 0)}`).join(" ");
      const line = svg("polyline", { points: pts, fill: "none", stroke, "stroke-width": 2.5, "stroke-dasharray": dash, class: "series", "data-player": name });
      line.append(svg("title", {}, `${name}: ${rows.map((r) => r[p]).join(", ")}`));
      root.append(line);
    });
    box.replaceChildren(root);
    $("legend").replaceChildren(...players.map((name, p) => {
      const [stroke, dash] = LINES[p % LINES.length];
      const sw = svg("svg", { width: 28, height: 10, "aria-hidden": "true" });
      sw.append(svg("line", { x1: 0, x2: 28, y1: 5, y2: 5, stroke, "stroke-width": 3, "stroke-dasharray": dash }));
      return el("li", {}, sw, ` ${name}: ${show((sc.totals || {})[name])}`);
    }));
  }

  function table(sc) {
    const t = $("score-table");
    const players = entrants(sc);
    t.tHead.replaceChildren(el("tr", {}, el("th", { text: "Round" }), ...players.map((p) => el("th", { text: p })), el("th", { text: "Went out" })));
    t.tBodies[0].replaceChildren(...(sc.rounds || []).map((r) => el("tr", {},
      el("td", { text: show(r.round) }), ...players.map((p) => el("td", { text: show((r.points || {})[p]) })),
      el("td", { text: show((r.winners || []).join(", ")) }))));
    t.tFoot.replaceChildren(el("tr", {}, el("th", { text: "Total" }), ...players.map((p) => el("th", { text: show((sc.totals || {})[p]) })), el("th", {})));
    $("format").textContent = `Format: ${show(sc.format)} · target ${show(sc.target)} · ${(sc.rounds || []).length} round(s) played`;
    const w = $("winner");
    w.hidden = !(sc.over && sc.winners && sc.winners.length);
    w.textContent = w.hidden ? "" : `Winner: ${sc.winners.join(" & ")}`;
  }

  async function load() {
    try {
      const sc = await api("/api/scores");
      table(sc);
      chart(sc);
    } catch (err) { UNO.toast(`scores: ${err.message}`, false); }
  }
  let timer = null;
  live({ snapshot: load, state: () => {}, event: () => { if (!timer) timer = setTimeout(() => { timer = null; load(); }, 300); } });
})();
