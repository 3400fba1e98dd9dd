/* Host controls: every correction is a referee input sent through /api/host/command. */
"use strict";
(() => {
  const { el, show, api, command, toast, allCards, cardInfo, seatName } = UNO;
  const $ = (id) => document.getElementById(id);
  let entries = [];
  let seats = [];
  // H13: the host may spin for the seat that must (the server draws the roll); a wrong
  // outcome is corrected like any entry (Resolve a dispute: replace it with a stated spin)
  const wheel = UNO.wheel.mount({
    canSpin: (st) => (st.spin && !st.spin.outcome ? st.spin.seat : null),
    spin: (seat) => command({ kind: "spin", seat }, "Wheel spun").then(loadEntries).catch(() => {}),
  });

  function fillSeats(st) {
    const list = st.seats || [];
    if (list.length === seats.length && list.every((s, i) => s.name === seats[i].name)) return;
    seats = list;
    for (const sel of [$("p-seat"), $("k-seat")]) {
      const keep = sel.value;
      sel.replaceChildren(...seats.map((s) => el("option", { value: s.seat, text: `${s.seat}: ${show(s.name)}` })));
      if (keep) sel.value = keep;
    }
    const cs = $("c-seat");
    cs.replaceChildren(el("option", { value: "", text: "as logged" }), ...seats.map((s) => el("option", { value: s.seat, text: `${s.seat}: ${show(s.name)}` })));
    $("score-inputs").replaceChildren(...seats.map((s) => el("li", {},
      el("label", { for: `hand-${s.seat}`, text: `${show(s.name)} (seat ${s.seat})` }),
      el("input", { id: `hand-${s.seat}`, class: "hand", dataset: { seat: s.seat }, placeholder: "e.g. red-7 wild", autocapitalize: "off", spellcheck: "false" }))));
  }

  function renderReveal(st) {
    const wanted = (st.awaiting || {}).reveal || [];
    $("reveal-wanted").textContent = wanted.length
      ? `Waiting for the hands of: ${wanted.map((x) => seatName(st, x)).join(", ")}`
      : "No round is waiting for revealed hands right now.";
  }

  function renderState(st) {
    $("h-top").textContent = cardInfo(st.top_card).label;
    $("h-colour").textContent = show(st.current_colour);
    $("h-turn").textContent = seatName(st, st.turn);
    fillSeats(st);
    renderReveal(st);
    wheel.render(st);
  }

  function entryLabel(e) {
    const p = e.payload || {};
    const cards = p.cards ? Object.values(p.cards).join(" ") : p.card || ""; // dealer_draw: {seat: card}
    return `#${e.seq} ${e.kind}${e.seat !== null && e.seat !== undefined ? ` seat ${e.seat}` : ""} ${cards}${e.inferred ? " (inferred)" : ""}`.trim();
  }

  async function loadEntries() {
    try {
      const data = await api("/api/log?limit=80");
      entries = data.entries.filter((e) => !e.withdrawn && !["amend", "undo"].includes(e.kind)).reverse();
    } catch (e) { toast(`log: ${e.message}`, false); return; }
    const cards = entries.filter((e) => ["play", "flip"].includes(e.kind));
    const cSel = $("c-entry");
    const keep = cSel.value;
    cSel.replaceChildren(...cards.map((e) => el("option", { value: e.seq, text: entryLabel(e) })));
    if (keep && cards.some((e) => String(e.seq) === keep)) cSel.value = keep;
    const dSel = $("d-entry");
    const dKeep = dSel.value;
    dSel.replaceChildren(...entries.map((e) => el("option", { value: e.seq, text: entryLabel(e) })));
    if (dKeep) dSel.value = dKeep;
    $("withdraw-list").replaceChildren(...entries.slice(0, 12).map((e) => el("li", {},
      el("span", { text: entryLabel(e) }),
      el("button", { type: "button", class: "small", dataset: { target: e.seq },
        onclick: () => command({ kind: "undo", target: e.seq }, `entry #${e.seq} withdrawn`).then(loadEntries).catch(() => {}) }, "Withdraw"))));
  }

  function on(formId, build, okText) {
    $(formId).addEventListener("submit", async (ev) => {
      ev.preventDefault();
      let cmd;
      try { cmd = build(); } catch (e) { toast(e.message, false); return; }
      try {
        await command(cmd, okText);
        $("host-msg").textContent = `${okText}.`;
        loadEntries();
      } catch (e) { $("host-msg").textContent = e.message; }
    });
  }

  $("c-card").replaceChildren(...allCards().map((c) => el("option", { value: c, text: cardInfo(c).label })));
  on("correct-form", () => {
    const seq = Number($("c-entry").value);
    const entry = entries.find((e) => e.seq === seq);
    if (!entry) throw new Error("choose a log entry with a recognised card");
    const input = { ...(entry.payload || { kind: entry.kind }) };
    const card = $("c-card").value;
    if (input.kind === "flip") input.card = card;
    else input.cards = [card];
    if ($("c-seat").value !== "") input.seat = Number($("c-seat").value);
    return { kind: "amend", target: seq, input };
  }, "Card corrected");
  on("penalty-form", () => {
    const cmd = { kind: "host_penalty", seat: Number($("p-seat").value), count: Number($("p-count").value), rule: $("p-rule").value.trim() };
    const reason = $("p-reason").value.trim();
    if (reason) cmd.reason = reason;
    return cmd;
  }, "Penalty ordered");
  on("count-form", () => ({ kind: "correct_count", seat: Number($("k-seat").value), count: Number($("k-count").value), reason: "host correction" }), "Hand count set");
  $("scores-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const known = new Set(allCards());
    const reveals = [];
    for (const input of $("score-inputs").querySelectorAll("input.hand")) {
      const cards = input.value.trim().toLowerCase().split(/[\s,]+/).filter(Boolean);
      if (!cards.length) continue;
      const bad = cards.filter((c) => !known.has(c));
      if (bad.length) { toast(`seat ${input.dataset.seat}: unknown card ${bad.join(", ")} (write e.g. red-7, blue-skip, wild-draw4)`, false); return; }
      reveals.push({ kind: "reveal", seat: Number(input.dataset.seat), cards });
    }
    if (!reveals.length) { toast("type at least one revealed hand", false); return; }
    for (const cmd of reveals) {
      try { await command(cmd, `seat ${cmd.seat}'s hand recorded`); } catch (e) { $("host-msg").textContent = e.message; return; }
    }
    $("host-msg").textContent = "Hands recorded.";
    for (const input of $("score-inputs").querySelectorAll("input.hand")) input.value = "";
    loadEntries();
  });
  function syncDispute() {
    const replace = $("d-ruling").value === "replace";
    $("d-input").hidden = !replace;
    const entry = entries.find((e) => e.seq === Number($("d-entry").value));
    if (replace && entry && !$("d-input").dataset.edited) $("d-input").value = JSON.stringify(entry.payload || { kind: entry.kind });
  }
  $("d-ruling").addEventListener("change", syncDispute);
  $("d-entry").addEventListener("change", () => { delete $("d-input").dataset.edited; syncDispute(); });
  $("d-input").addEventListener("input", () => { $("d-input").dataset.edited = "1"; });
  on("dispute-form", () => {
    const target = Number($("d-entry").value);
    if (!target) throw new Error("choose the log entry the dispute is about");
    if ($("d-ruling").value === "withdraw") return { kind: "undo", target };
    let input;
    try { input = JSON.parse($("d-input").value); } catch (e) { throw new Error("the replacement is not valid JSON"); }
    return { kind: "amend", target, input };
  }, "Dispute resolved");
  on("raw-form", () => {
    let cmd;
    try { cmd = JSON.parse($("raw").value); } catch (e) { throw new Error("not valid JSON"); }
    return cmd;
  }, "Input sent");
  $("undo").addEventListener("click", () => {
    if (!window.confirm($("undo").dataset.confirm)) return;
    command({ kind: "undo" }, "Last input withdrawn").then(loadEntries).catch(() => {});
  });

  let timer = null;
  UNO.live({
    snapshot: (st) => { renderState(st); loadEntries(); },
    state: renderState,
    event: (ev) => {
      wheel.event(ev);
      if (!timer) timer = setTimeout(() => { timer = null; loadEntries(); }, 300); // throttle, never starve
    },
  });
})();
