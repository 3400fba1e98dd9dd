/* League page: polls /api/league and draws the tables, the standings and the seatings. */
"use strict";
(() => {
  const { el, show } = UNO;
  const $ = (id) => document.getElementById(id);
  const every = 1000 * (parseFloat(document.body.dataset.refresh) || 2);

  function ago(s) {
    if (s === null || s === undefined) return "";
    return s < 2 ? "now" : s < 120 ? `${Math.round(s)} s ago` : `${Math.round(s / 60)} min ago`;
  }

  function tables(data) {
    $("tables").tBodies[0].replaceChildren(...(data.tables || []).map((t) => el("tr", {},
      el("td", {}, el("strong", { text: t.table }), t.part !== null && t.part !== undefined ? ` (table ${t.part + 1} of 2)` : ""),
      el("td", { text: show(t.match) }),
      el("td", {}, el("span", { class: `status-${(t.status || "").replace(/ /g, "-")}`, text: t.status }),
        t.last_heard_s !== null && t.last_heard_s !== undefined ? ` · ${ago(t.last_heard_s)}` : "",
        t.clash ? el("div", { class: "problem", text: `name also used by instance ${t.clash}` }) : null,
        t.problem ? el("div", { class: "problem", text: t.problem }) : null),
      el("td", { text: t.round ? `${t.round} · ${show(t.phase)}` : show(t.phase) }),
      el("td", { text: show(t.turn) }),
      el("td", { text: (t.seats || []).map((s) => `${s.player}${s.score !== null && s.score !== undefined ? ` ${s.score}` : ""}`).join(" · ") }),
      el("td", { text: t.logged > t.counted ? `${show(t.counted)} (${t.logged - t.counted} to come)` : show(t.counted) }),
      el("td", {}, t.dashboard ? el("a", { href: t.dashboard, rel: "noopener", text: "open" }) : "—"))));
    const silent = data.not_heard_from || [];
    $("silent").hidden = !silent.length;
    $("silent").textContent = silent.length ? `Not heard from: ${silent.join(", ")}` : "";
  }

  function standingsTable(rows, club) {
    const head = club ? ["#", "Player", "Total", "Matches", "Won", "Rounds", "Tables"] : ["#", "Player", "Total", "Rounds"];
    return el("div", { class: "scroll-x" }, el("table", { class: "grid standings" },
      el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows.map((r, i) => el("tr", { class: i === 0 ? "first" : null },
        el("td", { text: String(i + 1) }), el("td", { text: r.player }), el("td", { class: "total", text: String(r.total) }),
        ...(club ? [el("td", { text: String(r.matches) }), el("td", { text: String(r.won) }), el("td", { text: String(r.rounds) }),
          el("td", { text: (r.tables || []).join(", ") })] : [el("td", { text: String(r.rounds) })]))))));
  }

  function match(m) {
    const parts = [el("h2", { text: m.kind === "two-table" ? `Match ${m.match}: 8 players, two tables, rotating partners` : `Club ${m.match}` })];
    for (const p of m.problems || []) parts.push(el("p", { class: "problem", text: p }));
    if (m.kind === "two-table") {
      const scored = m.rounds_scored || 0;
      parts.push(el("p", { class: "muted", text: m.over ? `Over after ${scored} rounds · winner ${(m.winners || []).join(" & ")}` : `${scored} of ${show(m.rounds_total || 28)} rounds scored at both tables` }));
      if ((m.standings || []).length) parts.push(standingsTable(m.standings, false));
      const seat = (m.seatings || [])[Math.min(scored, (m.seatings || []).length - 1)];
      if (seat && !m.over) {
        parts.push(el("h3", { text: `Round ${seat.round}: who sits where (partners opposite)` }));
        parts.push(el("div", { class: "seatings" }, ...seat.tables.map((names, i) => el("div", { class: "seating" },
          el("strong", { text: `${(m.tables || [])[i] || `table ${i + 1}`}` }), el("ol", { start: "0" }, ...names.map((n) => el("li", { text: n })))))));
      }
    }
    if ((m.club || []).length) {
      parts.push(el("p", { class: "muted", text: `${m.matches_played || 0} match(es) · ranked by ${m.by === "wins" ? "matches won" : "total points"}` }));
      parts.push(standingsTable(m.club, true));
    }
    return el("section", { class: "panel" }, ...parts);
  }

  async function load() {
    const badge = $("live");
    try {
      const data = await UNO.api("/api/league");
      tables(data);
      $("matches").replaceChildren(...(data.matches || []).map(match));
      $("broker").textContent = `${data.broker}${data.connected ? "" : " (not connected)"}`;
      badge.textContent = data.connected ? "live" : "broker down";
      badge.className = `live ${data.connected ? "on" : "off"}`;
    } catch (err) {
      badge.textContent = "reconnecting…";
      badge.className = "live off";
    }
    setTimeout(load, every);
  }
  load();
})();
