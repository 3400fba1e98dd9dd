/* Table page: the state in large type, seats, verdicts and the live event feed. */
"use strict";
(() => {
  const { el, show, cardEl, live, eventText, seatName } = UNO;
  const $ = (id) => document.getElementById(id);
  const MAX_EVENTS = 40;
  const wheel = UNO.wheel.mount(); // H13: shown while a seat spins; this page only watches

  function render(st) {
    const colour = st.current_colour;
    $("colour").dataset.colour = colour || "";
    $("colour").className = `colour-block c-${colour || "none"}`;
    $("colour-name").textContent = colour ? colour.toUpperCase() : "—";
    $("top-card").replaceChildren(cardEl(st.top_card));
    $("turn").textContent = seatName(st, st.turn);
    $("direction").textContent = st.direction === -1 ? "↺ counter-clockwise" : "↻ clockwise";
    $("status").textContent = show(st.status);
    const waits = [];
    const has = (v) => v !== null && v !== undefined;
    if (has(st.awaiting_colour)) waits.push(`${seatName(st, st.awaiting_colour)} must name a colour`);
    const a = st.awaiting || {};
    if (has(a.challenge)) waits.push(`${seatName(st, a.challenge)} may challenge the Wild Draw Four or accept it`);
    if (a.reveal && a.reveal.length) waits.push(`reveal hands: ${a.reveal.map((x) => seatName(st, x)).join(", ")}`);
    if (has(a.spin)) waits.push(`${seatName(st, a.spin)} must spin the wheel`);
    if (a.starter) waits.push("turn up the first card");
    if (a.dealer_draw && a.dealer_draw.length) waits.push(`draw for dealer: ${a.dealer_draw.map((x) => seatName(st, x)).join(", ")}`);
    const aw = $("awaiting");
    aw.hidden = waits.length === 0;
    aw.textContent = waits.length ? `Waiting: ${waits.join(" · ")}` : "";
    const p = st.pending || {};
    const bits = [];
    const stackText = (x) => (typeof x === "string" ? x : `${seatName(st, x.seat)} owes ${x.count}${x.rule ? ` (${x.rule})` : ""}`);
    if (p.draw) bits.push(`${p.draw} card${p.draw === 1 ? "" : "s"} to draw`);
    if (p.stack && p.stack.length) bits.push(p.stack.map(stackText).join(", "));
    for (const pen of p.penalties || []) bits.push(`${seatName(st, pen.seat)} draws ${pen.count}${pen.reason ? ` (${pen.reason})` : ""}`);
    $("pending").hidden = bits.length === 0;
    $("pending").textContent = bits.length ? `Pending: ${bits.join(" · ")}` : "";
    $("seats").replaceChildren(...(st.seats || []).map((s) => {
      const uno = s.uno === "called" ? "UNO called" : s.uno === "missed" ? "UNO missed!" : "";
      return el("li", { class: `seat${s.seat === st.turn ? " turn" : ""}`, dataset: { seat: s.seat } },
        el("span", { class: "seat-name", text: `${show(s.name)}` }),
        el("span", { class: "seat-no", text: `seat ${s.seat}` }),
        el("span", { class: "count", text: `${show(s.hand_count)} card${s.hand_count === 1 ? "" : "s"}${s.inferred ? " (inferred)" : ""}` }),
        uno ? el("span", { class: `badge ${s.uno}`, text: uno }) : null,
        s.team !== undefined && s.team !== null ? el("span", { class: "badge", text: `team ${s.team}` }) : null,
        s.seat === st.turn ? el("span", { class: "badge turn", text: "to play" }) : null);
    }));
    $("verdicts").replaceChildren(...(st.verdicts || []).slice().reverse().map((v) =>
      el("li", { class: v.ok === false ? "bad" : "ok" },
        el("strong", { text: v.ok === false ? "✗ refused: " : "✓ " }), show(v.text),
        v.reason ? el("span", { class: "reason", text: ` — ${v.reason}` }) : null,
        v.entry && UNO.replay ? [" ", UNO.replay.button(v.entry)] : null)));
    const m = st.match || {};
    $("match-info").textContent = `Round ${show(m.round)} · ${show(m.format)} to ${show(m.target)} · rules: ${show(m.preset)}`;
    wheel.render(st);
  }

  function addEvent(ev, older) {
    const list = $("events");
    if (list.querySelector(`li[data-seq="${ev.seq}"]`)) return;
    list[older ? "append" : "prepend"](el("li", { dataset: { seq: ev.seq, type: ev.type }, class: ev.payload && ev.payload.inferred ? "inferred" : "" },
      el("span", { class: "seq", text: `#${ev.seq}` }), " ", eventText(ev),
      ev.payload && ev.payload.inferred ? el("span", { class: "badge inferred", text: "inferred" }) : null));
    while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
  }

  /* On connect, show the last few events that happened before this page opened. */
  async function backfill(st) {
    const seq = Number(st.seq) || 0;
    if (!seq) return;
    try {
      const data = await UNO.api(`/api/events?after=${Math.max(0, seq - 15)}`);
      data.events.filter((e) => e.seq <= seq && e.type !== "snapshot").reverse().forEach((e) => addEvent(e, true));
    } catch (e) { /* the live feed still works; history is a nicety */ }
  }

  live({ snapshot: (st) => { render(st); backfill(st); }, state: render, event: (ev) => { addEvent(ev, false); wheel.event(ev); } });
})();
