/* Virtual hardware panel: seat buttons and colour pad as buttons; the buzzer patterns are
   played with WebAudio and always shown as text too. */
"use strict";
(() => {
  const { el, api, toast } = UNO;
  const $ = (id) => document.getElementById(id);
  let patterns = {};
  let audio = null;

  async function press(target, gesture) {
    try {
      await api("/api/panel/press", { method: "POST", body: { target, gesture } });
      $("panel-msg").textContent = `${target} ${gesture}`;
    } catch (e) {
      $("panel-msg").textContent = `Refused: ${e.message}`;
      toast(e.message, false);
    }
  }

  function play(name) {
    const p = patterns[name];
    const text = p ? p.text : name;
    $("buzzer-now").textContent = `♪ ${name}: ${text}`;
    $("buzzer-log").prepend(el("li", { text: `${new Date().toLocaleTimeString()} ${name}: ${text}` }));
    if (!p || !$("sound").checked) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      let t = audio.currentTime + 0.02;
      for (const tone of p.tones || []) {
        const secs = (tone.ms || 100) / 1000;
        if (tone.freq > 0) {
          const osc = audio.createOscillator();
          const gain = audio.createGain();
          osc.type = "square";
          osc.frequency.value = tone.freq;
          gain.gain.setValueAtTime(0.08, t);
          gain.gain.setValueAtTime(0, t + secs);
          osc.connect(gain).connect(audio.destination);
          osc.start(t);
          osc.stop(t + secs);
        }
        t += secs;
      }
      setTimeout(() => { $("buzzer-now").textContent = "silent"; }, (t - audio.currentTime) * 1000 + 300);
    } catch (e) { /* no audio device: the text above still says what sounded */ }
  }

  /* Patterns as a list [{name, text, tones}] or a map {name: tones | {description, tones}}. */
  function normPatterns(raw) {
    const one = (name, v) => (Array.isArray(v)
      ? { name, text: name.replace(/-/g, " "), tones: v }
      : { name, text: v.text || v.description || name, tones: v.tones || v.steps || [] });
    if (Array.isArray(raw)) return raw.map((p) => one(p.name, p));
    return Object.entries(raw || {}).map(([name, v]) => one(name, v));
  }

  async function load() {
    const { hardware } = await api("/api/hardware");
    if (!hardware) { $("panel-off").hidden = false; return; }
    hardware.patterns = normPatterns(hardware.patterns);
    hardware.seats = (hardware.seats || []).map((s) => (typeof s === "number" ? { seat: s } : s));
    patterns = Object.fromEntries(hardware.patterns.map((p) => [p.name, p]));
    $("seat-buttons").replaceChildren(...hardware.seats.map((s) => el("li", {},
      el("span", { class: "seat-name", text: `${s.name || "Seat"} (seat ${s.seat})` }),
      ...(hardware.gestures || ["press"]).map((g) => el("button", { type: "button", dataset: { target: `seat:${s.seat}`, gesture: g },
        onclick: () => press(`seat:${s.seat}`, g) }, g)))));
    $("colour-pad").replaceChildren(...(hardware.colours || []).map((c) => el("button", { type: "button", class: `colour c-${c}`, dataset: { target: `colour:${c}` },
      onclick: () => press(`colour:${c}`, "press") }, c[0].toUpperCase() + c.slice(1))));
    $("buzzer-patterns").replaceChildren(...(hardware.patterns || []).map((p) => el("li", {},
      el("button", { type: "button", class: "small", onclick: () => play(p.name) }, `▶ ${p.name}`), ` ${p.text}`)));
  }

  load().catch((e) => toast(`panel: ${e.message}`, false));
  UNO.live({
    event: (ev) => {
      const p = ev.payload || {};
      if (ev.type === "buzzer" || ev.type === "sound") play(p.pattern || p.name);
    },
  });
})();
