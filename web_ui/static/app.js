/* Shared dashboard code: API calls, the live channel, cards drawn as text + colour.
   No framework, no CDN: everything the page needs is served by the table itself. */
"use strict";

const UNO = (() => {
  const body = document.body;
  const COLOURS = ["red", "yellow", "green", "blue"];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function show(value) {
    return value === null || value === undefined || value === "" ? "—" : String(value);
  }

  /* "red-draw2" -> {colour: "red", label: "Red Draw Two"}; colour names always in text. */
  function cardInfo(id) {
    if (!id) return { colour: null, label: "—" };
    if (id === "wild") return { colour: "wild", label: "Wild" };
    if (id === "wild-draw4") return { colour: "wild", label: "Wild Draw Four" };
    const [colour, rank] = id.split("-");
    const names = { skip: "Skip", reverse: "Reverse", draw2: "Draw Two" };
    const rankName = names[rank] || rank;
    return { colour, label: `${colour[0].toUpperCase()}${colour.slice(1)} ${rankName}` };
  }

  function cardEl(id) {
    const info = cardInfo(id);
    if (!id) return el("div", { class: "card empty", text: "no card yet" });
    const rank = id.startsWith("wild") ? (id === "wild" ? "W" : "+4") : id.split("-")[1];
    const short = { skip: "⊘", reverse: "⇄", draw2: "+2" }[rank] || rank;
    return el("div", { class: `card c-${info.colour}`, role: "img", "aria-label": info.label, dataset: { card: id } },
      el("span", { class: "rank", "aria-hidden": "true", text: short }),
      el("span", { class: "name", text: info.label }));
  }

  function allCards() {
    const out = [];
    for (const c of COLOURS) {
      for (const r of ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "draw2"]) out.push(`${c}-${r}`);
    }
    out.push("wild", "wild-draw4");
    return out;
  }

  function toast(message, ok) {
    const t = document.getElementById("toast");
    if (!t) return;
    t.textContent = message;
    t.className = `toast ${ok ? "ok" : "bad"}`;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, ok ? 2500 : 6000);
  }

  /* JSON request; host calls carry the CSRF token, seat calls the seat token.
     Resolves to the JSON body; rejects with an Error whose message is the server's. */
  async function api(path, { method = "GET", body, seatToken } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET" && UNO.csrf) headers["X-CSRF-Token"] = UNO.csrf;
    if (seatToken) headers["X-Seat-Token"] = seatToken;
    const resp = await fetch(path, {
      method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) {
      const err = new Error((data && data.error) || `${resp.status} ${resp.statusText}`);
      err.status = resp.status;
      throw err;
    }
    return data;
  }

  /* A host command through /api/host/command, reported in a toast. */
  async function command(cmd, okText) {
    try {
      const data = await api("/api/host/command", { method: "POST", body: cmd });
      toast(okText || `${cmd.kind}: done`, true);
      return data;
    } catch (e) {
      toast(`${cmd.kind} refused: ${e.message}`, false);
      throw e;
    }
  }

  /* The live channel. handlers.snapshot(state) on connect, handlers.event(ev) for each
     event in order, handlers.state(state) for the rate-limited current state. EventSource
     reconnects by itself and sends Last-Event-ID, so nothing is missed or repeated. */
  function live(handlers) {
    const badge = document.getElementById("live");
    let lastSeq = -1;
    const es = new EventSource("/api/stream");
    const setBadge = (text, cls) => { if (badge) { badge.textContent = text; badge.className = `live ${cls}`; } };
    es.onopen = () => setBadge("live", "on");
    es.onerror = () => setBadge("reconnecting…", "off");
    es.onmessage = (msg) => {
      let m;
      try { m = JSON.parse(msg.data); } catch (e) { return; }
      if (m.type === "snapshot") {
        lastSeq = m.payload.seq;
        UNO.state = m.payload;
        handlers.snapshot && handlers.snapshot(m.payload);
      } else if (m.type === "event") {
        if (m.payload.seq <= lastSeq) return; // belt and braces: never apply twice
        lastSeq = m.payload.seq;
        if (m.payload.type === "snapshot") { // the table re-sent its whole state (new match)
          UNO.state = m.payload.payload;
          (handlers.state || handlers.snapshot) && (handlers.state || handlers.snapshot)(m.payload.payload);
        } else {
          handlers.event && handlers.event(m.payload);
        }
      } else if (m.type === "state") {
        UNO.state = m.payload;
        (handlers.state || handlers.snapshot) && (handlers.state || handlers.snapshot)(m.payload);
      }
      body.dataset.seq = String(lastSeq);
    };
    window.addEventListener("pagehide", () => es.close());
    return es;
  }

  function eventText(ev) {
    const p = ev.payload || {};
    if (p.text) return p.text;
    const bits = Object.entries(p)
      .filter(([k, v]) => k !== "text" && k !== "kind" && (v === null || typeof v !== "object" || (Array.isArray(v) && v.length <= 10 && v.every((x) => typeof x !== "object"))))
      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : v}`);
    return `${ev.type.replace(/_/g, " ")} ${bits.join(" ")}`.trim();
  }

  function seatName(state, seat) {
    if (seat === null || seat === undefined) return "—";
    const s = state && state.seats && state.seats.find((x) => x.seat === seat);
    return s && s.name ? `${s.name} (seat ${seat})` : `seat ${seat}`;
  }

  return { el, show, cardInfo, cardEl, allCards, toast, api, command, live, eventText, seatName,
           COLOURS, csrf: body.dataset.csrf || "", state: null };
})();
