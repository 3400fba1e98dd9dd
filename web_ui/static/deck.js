/* Decks (host): teach the table a deck from the camera, check and change the names of its
   cards, fit it, and choose the deck in use. Everything goes through /api/decks*. */
"use strict";
(() => {
  const { el, api, toast, cardInfo } = UNO;
  const $ = (id) => document.getElementById(id);
  let faces = [];
  let shown = null;   // the deck whose cards are shown
  let polling = null;

  const name = () => $("deck-name").value.trim();
  const pct = (v) => (v === null || v === undefined ? "—" : `${(100 * v).toFixed(1)}%`);

  async function refresh() {
    let data;
    try { data = await api("/api/decks"); } catch (e) { toast(e.message, false); return; }
    faces = data.faces;
    const sel = $("deck-use");
    sel.replaceChildren(el("option", { value: "", text: "generic model" }),
      ...data.decks.filter((d) => d.compatible === null).map((d) => el("option", { value: d.name, text: d.name })));
    sel.value = data.in_use || "";
    $("deck-in-use").textContent = `In use: ${data.in_use || "the generic model"}`;
    const n = data.captures[name()] || 0;
    $("deck-captures").textContent = name() ? `${n} capture(s) for “${name()}”` : "Give the deck a name first.";
    $("deck-list").replaceChildren(...data.decks.map(deckItem));
    if (!data.decks.length) $("deck-list").append(el("li", { class: "muted", text: "none yet" }));
    showJob(data.job);
  }

  function deckItem(d) {
    const held = (d.figures && d.figures.held_back) || {};
    const state = d.compatible === null ? (d.stale ? "fitted (names changed since: fit again)" : "ready") : d.compatible;
    return el("li", {},
      el("b", { text: d.name }), ` ${d.faces} of 54 faces`,
      d.missing && d.missing.length ? el("span", { class: "muted", text: ` · missing ${d.missing.join(", ")}` }) : null,
      el("span", { class: "muted", text: ` · ${state}` }),
      held.deck_top1 !== undefined ? el("span", { class: "muted", text: ` · held-back top-1 ${pct(held.generic_top1)} → ${pct(held.deck_top1)}` }) : null,
      // what `python -m models deck-tune` / `deck-detector` added (made on a laptop, copied here)
      d.tuned ? el("span", { class: "muted deck-tuned", text: ` · own network, held-back ${pct(d.tuned.held_back_top1_gated)}` }) : null,
      d.detector ? el("span", { class: "muted deck-detector", text: " · own table detector" }) : null,
      el("div", { class: "buttons" },
        el("button", { type: "button", class: "small", text: "Cards", onclick: () => showCards(d.name) }),
        el("button", { type: "button", class: "small", text: "Fit", onclick: () => start(`/api/decks/${d.name}/fit`, {}) }),
        el("button", { type: "button", class: "small", text: "Remove", onclick: () => removeDeck(d.name) })));
  }

  async function showCards(deck) {
    let data;
    try { data = await api(`/api/decks/${deck}`); } catch (e) { toast(e.message, false); return; }
    shown = deck;
    $("deck-cards-panel").hidden = false;
    $("deck-cards-title").textContent = `Cards of ${deck}`;
    const counts = {};
    for (const c of data.cards) counts[c.card] = (counts[c.card] || 0) + 1;
    $("deck-cards").replaceChildren(...data.cards.map((c) => cardTile(deck, c, counts[c.card] > 1)));
  }

  function cardTile(deck, c, twice) {
    const unsure = c.confidence < 0.6;
    const select = el("select", { "aria-label": `name of card ${c.row}`, hidden: true },
      ...faces.map((f) => el("option", { value: f, text: cardInfo(f).label })));
    select.value = c.card;
    select.addEventListener("change", async () => {
      try {
        await api(`/api/decks/${deck}/cards/${c.row}`, { method: "POST", body: { card: select.value } });
        toast(`card ${c.row}: ${cardInfo(select.value).label}`, true);
        showCards(deck);
        refresh();
      } catch (e) { toast(e.message, false); }
    });
    const label = el("span", { class: "deck-card-name", text: cardInfo(c.card).label });
    const tile = el("li", { class: `deck-card${unsure ? " unsure" : ""}${twice ? " twice" : ""}` },
      el("button", { type: "button", class: "deck-card-btn", title: "change the name", onclick: () => { select.hidden = !select.hidden; select.focus(); } },
        el("img", { src: `/api/decks/${deck}/crops/${c.row}.png`, alt: `card ${c.row}`, width: 64, height: 96 }), label),
      el("small", { class: "muted", text: `${c.row} · ${unsure ? "not sure " : ""}${c.confidence.toFixed(2)}${twice ? " · named twice" : ""}` }),
      select);
    return tile;
  }

  function showJob(job) {
    const box = $("deck-job");
    if (!job) { box.textContent = ""; return; }
    const progress = job.total ? ` ${Math.round((100 * job.done) / job.total)}%` : "";
    box.textContent = `${job.kind} ${job.deck}: ${job.state}${job.state === "running" ? ` (${job.stage}${progress})` : ""}\n${job.message || ""}`;
    if (job.state === "running" && !polling) {
      polling = setInterval(async () => {
        try {
          const { job: j } = await api("/api/decks-job");
          showJob(j);
          if (!j || j.state !== "running") {
            clearInterval(polling); polling = null;
            refresh();
            if (j && j.state === "done" && j.kind === "learn") showCards(j.deck);
          }
        } catch (e) { clearInterval(polling); polling = null; }
      }, 1000);
    }
  }

  async function start(path, body) {
    try {
      const job = await api(path, { method: "POST", body });
      showJob(job);
    } catch (e) { toast(e.message, false); }
  }

  async function removeDeck(deck) {
    if (!window.confirm(`Forget deck ${deck}? Its photos and fit are deleted.`)) return;
    try { await api(`/api/decks/${deck}`, { method: "DELETE" }); toast(`removed ${deck}`, true); } catch (e) { toast(e.message, false); }
    if (shown === deck) $("deck-cards-panel").hidden = true;
    refresh();
  }

  $("deck-capture").addEventListener("click", async () => {
    if (!name()) { toast("give the deck a name first", false); return; }
    try { const r = await api(`/api/decks/${name()}/capture`, { method: "POST", body: {} }); toast(`capture ${r.captures} kept`, true); } catch (e) { toast(e.message, false); }
    refresh();
  });
  $("deck-clear").addEventListener("click", async () => {
    if (!name()) return;
    try { await api(`/api/decks/${name()}/captures`, { method: "DELETE" }); } catch (e) { toast(e.message, false); }
    refresh();
  });
  $("deck-learn").addEventListener("click", () => {
    if (!name()) { toast("give the deck a name first", false); return; }
    start(`/api/decks/${name()}/learn`, { replace: $("deck-replace").checked, allow_missing: $("deck-missing").checked });
  });
  $("deck-use-btn").addEventListener("click", async () => {
    const deck = $("deck-use").value || null;
    try { await api("/api/decks-use", { method: "POST", body: { deck } }); toast(`reading with ${deck || "the generic model"}`, true); } catch (e) { toast(e.message, false); }
    refresh();
  });
  $("deck-name").addEventListener("input", refresh);
  refresh();
})();
