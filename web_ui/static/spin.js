/* H13 UNO Spin: the wheel every phone shows while a seat spins.
   Its segments are the referee's (snapshot.wheel, table.referee.SPIN_WHEEL), never a copy
   kept here, and it turns to the outcome the referee logged (a spin_result event): the
   browser draws nothing at random. "Spin the wheel" only asks the table to spin; the server
   draws the roll and logs it. */
"use strict";
UNO.wheel = (() => {
  const { el, seatName } = UNO;
  const FILL = { red: "var(--red)", yellow: "var(--yellow)", green: "var(--green)", blue: "var(--blue)",
    "down-to-two": "#6b21a8", "trade-hands": "#222" };
  const TURNS = 4; // whole turns before the wheel settles
  const reduced = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  /* mount the wheel in #wheel-panel. canSpin(state) -> the seat whose "Spin the wheel" this
     page may press, or null; spin(seat) sends it. */
  function mount({ canSpin, spin } = {}) {
    const panel = document.getElementById("wheel-panel");
    if (!panel) return { render() {}, event() {} };
    const wheel = document.getElementById("wheel");
    const result = document.getElementById("wheel-result");
    const button = document.getElementById("spin-button");
    let segments = null;
    let angle = 0; // the wheel's rotation so far, degrees clockwise
    let landing = null; // the result shown once the wheel stops
    let lastSeat = null;
    let state = null;

    function draw(segs) {
      const key = JSON.stringify(segs);
      if (key === wheel.dataset.key) return;
      wheel.dataset.key = key;
      segments = segs;
      const step = 360 / segs.length;
      wheel.style.background = `conic-gradient(${segs.map((s, i) =>
        `${FILL[s.colour || s.outcome] || "#888"} ${i * step}deg ${(i + 1) * step}deg`).join(", ")})`;
      wheel.replaceChildren(...segs.map((s, i) => {
        const label = el("span", { class: `wheel-label${s.colour === "yellow" ? " dark" : ""}`, text: s.text });
        label.style.transform = `rotate(${(i + 0.5) * step - 90}deg)`; // along its segment's middle
        return label;
      }));
    }

    function render(st) {
      state = st;
      const segs = st.wheel;
      if (!segs || !segs.length) { panel.hidden = true; return; }
      draw(segs);
      const sp = st.spin;
      const waiting = sp && !sp.outcome ? sp.seat : null;
      if (waiting !== null && waiting !== lastSeat && !landing) {
        result.textContent = `${seatName(st, waiting)} must spin the wheel`;
        delete panel.dataset.outcome; delete panel.dataset.colour; delete panel.dataset.segment;
      }
      lastSeat = waiting;
      panel.hidden = !(sp || landing || panel.dataset.outcome);
      const mine = canSpin ? canSpin(st) : null;
      button.hidden = mine === null || mine === undefined || waiting === null || mine !== waiting;
      button.disabled = !!landing;
    }

    /* the referee's spin_result: turn to where the logged roll stopped (or, for an outcome
       the host stated, the middle of its segment) and then say what it means */
    function landed(p) {
      if (!segments) return;
      const n = segments.length;
      let i = typeof p.roll === "number" ? Math.min(Math.floor(p.roll * n), n - 1)
        : segments.findIndex((s) => s.outcome === p.outcome && (s.colour || null) === (p.colour || null));
      if (i < 0) i = 0;
      const at = typeof p.roll === "number" ? p.roll * 360 : (i + 0.5) * (360 / n);
      const target = ((-at % 360) + 360) % 360;
      angle += TURNS * 360 + ((target - (angle % 360)) + 360) % 360;
      const ms = reduced() ? 200 : 3000;
      wheel.style.transition = `transform ${ms}ms cubic-bezier(.15, .7, .2, 1)`;
      wheel.style.transform = `rotate(${angle}deg)`;
      panel.hidden = false;
      result.textContent = "…";
      landing = p;
      clearTimeout(landed.timer);
      landed.timer = setTimeout(() => {
        landing = null;
        Object.assign(panel.dataset, { outcome: p.outcome, colour: p.colour || "", segment: String(i) });
        result.textContent = p.text || `${seatName(state, p.seat)}: ${segments[i].text}`;
        if (state) render(state);
      }, ms + 50);
    }

    button.addEventListener("click", async () => {
      const seat = state && state.spin ? state.spin.seat : null;
      if (seat === null || !spin) return;
      button.disabled = true;
      try { await spin(seat); } finally { button.disabled = !!landing; }
    });

    return {
      render,
      event(ev) {
        if (ev.type === "spin_result") landed(ev.payload || {});
        else if (ev.type === "round_started") { delete panel.dataset.outcome; result.textContent = ""; }
      },
    };
  }

  return { mount };
})();
