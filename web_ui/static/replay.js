/* Instant replay: the clip behind a camera entry, played frame by frame on a canvas with the
   cards' boxes and names drawn over it (no plug-in, no CDN). UNO.replay.open(entry) shows it;
   UNO.replay.button(entry) is a "replay" button for a log row or a verdict. The host can mark
   a moment of the clip ("that was a jump-in by Ben"). */
"use strict";
(() => {
  const { el, show, command } = UNO;
  const CARD_STROKE = { red: "#e11d48", yellow: "#eab308", green: "#16a34a", blue: "#2563eb", wild: "#111", back: "#777" };
  let dlg = null;
  let player = null;

  function words(card) { return card === "back" ? "card back" : UNO.cardInfo(card).label; }

  async function getClip(entry) {
    const resp = await fetch(`/api/replay/${entry}`, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!data) data = { state: "none", message: `${resp.status} ${resp.statusText}` };
    if (!resp.ok && !data.message) data.message = data.error;
    return data;
  }

  function dialog() {
    if (dlg) return dlg;
    dlg = el("dialog", { id: "replay", class: "replay", "aria-label": "instant replay" },
      el("div", { class: "replay-head" },
        el("strong", { id: "replay-title", text: "Replay" }),
        el("button", { type: "button", class: "small", id: "replay-close", onclick: close }, "Close")),
      el("p", { id: "replay-text", class: "muted" }),
      el("p", { id: "replay-msg", role: "status", class: "notice", hidden: true }),
      el("canvas", { id: "replay-canvas", width: 480, height: 270 }),
      el("div", { class: "row replay-controls" },
        el("button", { type: "button", id: "replay-play", class: "small", onclick: () => player && player.toggle() }, "Pause"),
        el("input", { type: "range", id: "replay-scrub", min: 0, max: 0, value: 0, "aria-label": "frame",
          oninput: (ev) => player && player.seek(Number(ev.target.value)) }),
        el("span", { id: "replay-count", class: "muted" })),
      el("ul", { id: "replay-cards", class: "replay-cards" }),
      el("ul", { id: "replay-marks", class: "entry-list" }),
      document.body.dataset.host ? el("form", { id: "replay-mark", class: "row" },
        el("label", {}, "Mark this moment ", el("input", { id: "mark-text", maxlength: 200, placeholder: "that was a jump-in by Ben", required: true })),
        el("label", {}, "Played by ", el("select", { id: "mark-seat" })),
        el("button", { type: "submit", class: "small" }, "Mark")) : null);
    document.body.append(dlg);
    const form = dlg.querySelector("#replay-mark");
    if (form) form.addEventListener("submit", mark);
    dlg.addEventListener("close", stop);
    return dlg;
  }

  function stop() { if (player) player.stop(); player = null; }
  function close() { stop(); if (dlg && dlg.open) dlg.close(); }

  function say(text) {
    const m = dlg.querySelector("#replay-msg");
    m.hidden = !text;
    m.textContent = text || "";
  }

  function fillSeats() {
    const sel = dlg.querySelector("#mark-seat");
    if (!sel) return;
    const seats = (UNO.state && UNO.state.seats) || [];
    sel.replaceChildren(el("option", { value: "", text: "as logged" }),
      ...seats.map((s) => el("option", { value: s.seat, text: show(s.name) })));
  }

  async function mark(ev) {
    ev.preventDefault();
    const entry = Number(dlg.dataset.entry);
    const cmd = { kind: "mark", entry, text: dlg.querySelector("#mark-text").value.trim() };
    if (player) cmd.frame = player.index;
    const seat = dlg.querySelector("#mark-seat").value;
    if (seat !== "") cmd.seat = Number(seat);
    try {
      await command(cmd, `entry #${entry}: moment marked`);
      dlg.querySelector("#mark-text").value = "";
      const clip = await getClip(entry);
      renderMarks(clip.marks || []);
    } catch (e) { /* the toast said why */ }
  }

  function renderMarks(marks) {
    dlg.querySelector("#replay-marks").replaceChildren(...marks.map((m) =>
      el("li", { text: `${m.frame !== null && m.frame !== undefined ? `frame ${m.frame + 1}: ` : ""}${m.text}` })));
  }

  function renderCards(entry, clip) {
    dlg.querySelector("#replay-cards").replaceChildren(...(clip.cards || []).map((c, i) =>
      el("li", { class: "replay-card" },
        c.crop ? el("img", { src: `/api/replay/${entry}/crop/${i}.jpg`, alt: `the card read as ${words(c.card)}`, class: "crop" }) : null,
        el("span", { text: `read: ${words(c.card)}${c.confidence !== undefined ? ` (${Number(c.confidence).toFixed(2)})` : ""}` }),
        (c.candidates || []).length > 1
          ? el("span", { class: "muted", text: ` · guesses: ${c.candidates.map(([n, p]) => `${words(n)} ${Number(p).toFixed(2)}`).join(", ")}` })
          : null)));
  }

  /* One clip on the canvas: frames shown at their recorded times, looping. */
  function Player(entry, clip, canvas) {
    const frames = clip.frames || [];
    const images = frames.map((_, i) => { const im = new Image(); im.src = `/api/replay/${entry}/frame/${i}.jpg`; return im; });
    const ctx = canvas.getContext("2d");
    const [w, h] = clip.size || [480, 270];
    canvas.width = w; canvas.height = h;
    const scrub = dlg.querySelector("#replay-scrub");
    scrub.max = String(Math.max(0, frames.length - 1));
    const self = { index: 0, playing: true, timer: null };

    function draw(i) {
      const im = images[i];
      if (!im || !im.complete || !im.naturalWidth) return false;
      ctx.drawImage(im, 0, 0, w, h);
      const s = Math.max(1, w / 480);
      ctx.lineWidth = 2 * s;
      ctx.font = `${Math.round(12 * s)}px system-ui, sans-serif`;
      for (const [card, conf, pts] of frames[i].boxes || []) {
        const colour = CARD_STROKE[String(card).split("-")[0]] || "#fff";
        ctx.strokeStyle = colour;
        ctx.beginPath();
        for (let k = 0; k < pts.length; k += 2) (k ? ctx.lineTo : ctx.moveTo).call(ctx, pts[k], pts[k + 1]);
        ctx.closePath();
        ctx.stroke();
        const label = `${words(card)} ${Number(conf).toFixed(2)}`;
        const x = Math.min(...pts.filter((_, k) => k % 2 === 0));
        const y = Math.min(...pts.filter((_, k) => k % 2 === 1));
        const tw = ctx.measureText(label).width + 6;
        ctx.fillStyle = colour;
        ctx.fillRect(x, Math.max(0, y - 16 * s), tw, 16 * s);
        ctx.fillStyle = "#fff";
        ctx.fillText(label, x + 3, Math.max(12 * s, y - 4 * s));
      }
      if (i === clip.at) { // the moment the table decided on
        ctx.strokeStyle = "#facc15";
        ctx.lineWidth = 6 * s;
        ctx.strokeRect(3 * s, 3 * s, w - 6 * s, h - 6 * s);
      }
      ctx.fillStyle = "rgba(0,0,0,.6)";
      ctx.fillRect(0, h - 20 * s, w, 20 * s);
      ctx.fillStyle = "#fff";
      const dt = (frames[i].t - (frames[clip.at] ? frames[clip.at].t : 0)).toFixed(1);
      ctx.fillText(`entry #${entry} · frame ${i + 1}/${frames.length} · ${dt >= 0 ? "+" : ""}${dt} s${i === clip.at ? " · the moment" : ""}`, 6 * s, h - 6 * s);
      return true;
    }

    function showFrame(i) {
      self.index = i;
      draw(i);
      canvas.dataset.frame = String(i);
      dlg.dataset.frame = String(i);
      dlg.dataset.shown = String((Number(dlg.dataset.shown) || 0) + 1);
      scrub.value = String(i);
      dlg.querySelector("#replay-count").textContent = `${i + 1} / ${frames.length}`;
    }

    function tick() {
      if (!self.playing || !frames.length) return;
      const img = images[self.index];
      if (img && !img.complete) { self.timer = setTimeout(tick, 40); return; } // wait for the frame
      showFrame(self.index);
      const next = (self.index + 1) % frames.length;
      const gap = next === 0 ? 1000 : Math.max(40, (frames[next].t - frames[self.index].t) * 1000);
      self.index = next;
      self.timer = setTimeout(tick, gap);
    }

    self.toggle = () => {
      self.playing = !self.playing;
      dlg.querySelector("#replay-play").textContent = self.playing ? "Pause" : "Play";
      if (self.playing) tick(); else clearTimeout(self.timer);
    };
    self.seek = (i) => { clearTimeout(self.timer); self.playing = false; dlg.querySelector("#replay-play").textContent = "Play"; showFrame(i); };
    self.stop = () => { clearTimeout(self.timer); self.playing = false; };
    for (const im of images) im.addEventListener("load", () => { if (!self.playing) draw(self.index); }, { once: true });
    tick();
    return self;
  }

  async function open(entry) {
    dialog();
    stop();
    dlg.dataset.entry = String(entry);
    dlg.dataset.state = "loading";
    dlg.dataset.shown = "0";
    delete dlg.dataset.frame;
    dlg.querySelector("#replay-title").textContent = `Replay of entry #${entry}`;
    dlg.querySelector("#replay-text").textContent = "";
    dlg.querySelector("#replay-cards").replaceChildren();
    dlg.querySelector("#replay-marks").replaceChildren();
    say("loading…");
    fillSeats();
    if (!dlg.open) dlg.showModal();
    const clip = await getClip(entry);
    dlg.dataset.state = clip.state || "none";
    dlg.querySelector("#replay-text").textContent = clip.text ? `${clip.text}` : "";
    const canvas = dlg.querySelector("#replay-canvas");
    canvas.hidden = clip.state !== "ok";
    dlg.querySelector(".replay-controls").hidden = clip.state !== "ok";
    renderCards(entry, clip);
    renderMarks(clip.marks || []);
    if (clip.state !== "ok") { say(clip.message || "no clip for this entry"); return clip; }
    say("");
    player = Player(entry, clip, canvas);
    return clip;
  }

  function button(entry, label) {
    return el("button", { type: "button", class: "small replay-btn", dataset: { entry }, "aria-label": `replay entry ${entry}`,
      onclick: () => open(entry) }, label || "▶ replay");
  }

  UNO.replay = { open, button, close };
})();
