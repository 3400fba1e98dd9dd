/* Log page: entries filtered by seat and kind; inferred facts marked in words. */
"use strict";
(() => {
  const { el, show, api, live } = UNO;
  const $ = (id) => document.getElementById(id);
  const form = $("log-filter");
  const params = new URLSearchParams(window.location.search);
  const kinds = new Set();

  async function load() {
    const q = new URLSearchParams();
    for (const k of ["seat", "kind", "limit"]) {
      const v = form.elements[k].value.trim();
      if (v) q.set(k, v);
    }
    try {
      const data = await api(`/api/log?${q}`);
      $("log").tBodies[0].replaceChildren(...data.entries.slice().reverse().map((e) => {
        kinds.add(e.kind);
        return el("tr", { class: `${e.inferred ? "inferred" : ""}${e.withdrawn ? " withdrawn" : ""}`, dataset: { seq: e.seq, kind: e.kind } },
          el("td", { text: show(e.seq) }), el("td", { text: show(e.kind) }), el("td", { text: show(e.seat) }),
          el("td", { text: show(e.text) }),
          el("td", {}, e.inferred ? el("span", { class: "badge inferred", text: "inferred" }) : null,
            e.withdrawn ? el("span", { class: "badge", text: "withdrawn" }) : null,
            (e.payload || {}).unsure ? el("span", { class: "badge asked", text: "asked" }) : null,
            (e.payload || {}).source === "camera" && UNO.replay ? UNO.replay.button(e.seq) : null));
      }));
      $("kinds").replaceChildren(...[...kinds].sort().map((k) => el("option", { value: k })));
    } catch (err) {
      UNO.toast(`log: ${err.message}`, false);
    }
  }

  function seatsFrom(st) {
    const sel = $("f-seat");
    const keep = sel.value || params.get("seat") || "";
    sel.replaceChildren(el("option", { value: "", text: "all" }),
      ...(st.seats || []).map((s) => el("option", { value: s.seat, text: `${s.seat}: ${show(s.name)}` })));
    sel.value = keep;
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); load(); });
  if (params.get("kind")) $("f-kind").value = params.get("kind");
  let timer = null;
  live({
    snapshot: (st) => { seatsFrom(st); load(); },
    state: seatsFrom,
    event: () => { if (!timer) timer = setTimeout(() => { timer = null; load(); }, 300); }, // throttle, never starve
  });
})();
