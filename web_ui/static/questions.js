/* The host's questions: readings the table is unsure of, each with the crop of the card
   and its likeliest names as buttons. One tap confirms or fixes the reading (logged as an
   amend); an unanswered question just stays on the list, play goes on. A new question
   buzzes the host's phone softly. Also: replay any camera entry. */
"use strict";
(() => {
  const { el, show, api, command, toast } = UNO;
  const $ = (id) => document.getElementById(id);
  const list = $("questions");
  if (!list) return;
  let known = null; // entries of the open questions already shown (buzz only for new ones)

  function buzz() {
    document.body.dataset.buzz = String((Number(document.body.dataset.buzz) || 0) + 1);
    if (navigator.vibrate) { try { navigator.vibrate([40, 60, 40]); } catch (e) { /* not on this device */ } }
  }

  function item(q) {
    const crop = q.card !== null && q.card !== undefined
      ? el("img", { class: "crop", src: `/api/replay/${q.entry}/crop/${q.card}.jpg`, alt: `the card the table read as ${show(q.read)}`,
        onerror: (ev) => { ev.target.replaceWith(el("span", { class: "muted", text: "(no crop kept)" })); } })
      : null;
    return el("li", { class: "question", dataset: { entry: q.entry } },
      crop,
      el("div", { class: "q-body" },
        el("strong", { class: "q-ask", text: q.question }),
        el("div", { class: "muted", text: `#${q.entry}: ${q.text}` }),
        el("ul", { class: "q-why" }, ...(q.why || []).map((w) => el("li", { text: w }))),
        el("div", { class: "buttons" },
          ...(q.options || []).map((o) => el("button", { type: "button", class: `answer${o.card === q.read ? " read" : ""}`,
            dataset: { card: o.card }, onclick: () => answer(q, o.card) },
            `${o.label}${o.card === q.read ? " ✓ as read" : ""}`, el("span", { class: "p", text: ` ${Math.round(o.p * 100)}%` }))),
          (q.options || []).length ? null : el("button", { type: "button", class: "answer", onclick: () => answer(q, null) }, "Confirm as read"),
          UNO.replay ? UNO.replay.button(q.entry) : null)));
  }

  async function answer(q, card) {
    const cmd = { kind: "answer", entry: q.entry };
    if (card) cmd.card = card;
    try {
      await command(cmd, card && card !== q.read ? `entry #${q.entry} fixed: ${UNO.cardInfo(card).label}` : `entry #${q.entry} confirmed`);
    } catch (e) { /* the toast said why */ }
    load();
  }

  async function load() {
    let data;
    try { data = await api("/api/questions"); } catch (e) { toast(`questions: ${e.message}`, false); return; }
    const qs = data.questions || [];
    const entries = new Set(qs.map((q) => q.entry));
    if (known !== null && qs.some((q) => !known.has(q.entry))) buzz();
    known = entries;
    list.replaceChildren(...qs.map(item));
    $("questions-none").hidden = qs.length > 0;
    $("questions-count").textContent = qs.length ? `(${qs.length})` : "";
  }

  function replayStatus(st) {
    const r = st && st.replay;
    const box = $("replay-status");
    box.hidden = !(r && r.status === "stopped");
    box.textContent = r && r.status === "stopped" ? r.message : "";
  }

  async function loadCameraEntries() {
    let data;
    try { data = await api("/api/log?limit=300"); } catch (e) { return; }
    const sel = $("replay-entry");
    const keep = sel.value;
    const rows = data.entries.filter((e) => (e.payload || {}).source === "camera").reverse();
    const short = (t) => (t.length > 56 ? `${t.slice(0, 55)}…` : t);
    sel.replaceChildren(...rows.map((e) => el("option", { value: e.seq, text: short(`#${e.seq} ${e.text}`) })));
    if (keep && rows.some((e) => String(e.seq) === keep)) sel.value = keep;
  }

  $("replay-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const entry = Number($("replay-entry").value);
    if (entry) UNO.replay.open(entry);
  });

  let timer = null;
  const later = () => { if (!timer) timer = setTimeout(() => { timer = null; load(); loadCameraEntries(); }, 250); };
  UNO.live({
    snapshot: (st) => { replayStatus(st); load(); loadCameraEntries(); },
    state: replayStatus,
    event: (ev) => {
      if (ev.type === "replay") {
        const box = $("replay-status");
        box.hidden = !(ev.payload && ev.payload.status === "stopped");
        box.textContent = (ev.payload && ev.payload.text) || "";
        if (!box.hidden) toast(box.textContent, false);
      }
      if (["question", "state_rebuilt", "mark"].includes(ev.type) || (ev.payload && ev.payload.unsure)) later();
      else if (["play_accepted", "illegal_play", "round_scored", "starter_accepted"].includes(ev.type)) later();
    },
  });
})();
