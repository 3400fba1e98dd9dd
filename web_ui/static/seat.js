/* Seat controller: a phone that joined a seat by QR code; the seat's own buttons. */
"use strict";
(() => {
  const { api, toast, cardInfo, show, seatName } = UNO;
  const $ = (id) => document.getElementById(id);
  const seat = Number(document.body.dataset.seat);
  const token = document.body.dataset.seatToken;

  async function act(action, extra) {
    try {
      await api(`/api/seat/${seat}/action`, { method: "POST", body: { action, ...(extra || {}) }, seatToken: token });
      $("seat-msg").textContent = `Sent: ${action}${extra && extra.colour ? ` ${extra.colour}` : ""}`;
      if (navigator.vibrate) navigator.vibrate(30);
    } catch (e) {
      $("seat-msg").textContent = `Refused: ${e.message}`;
      toast(e.message, false);
    }
  }

  // H13: this seat's "Spin the wheel" asks the table to spin; the server draws where it stops
  const wheel = UNO.wheel.mount({ canSpin: () => seat, spin: () => act("spin") });

  function render(st) {
    const me = (st.seats || []).find((s) => s.seat === seat);
    $("seat-title").textContent = me && me.name ? `${me.name} · seat ${seat}` : `Seat ${seat}`;
    const bits = [];
    if (st.turn === seat) bits.push("Your turn");
    else bits.push(`Turn: ${seatName(st, st.turn)}`);
    if (me) bits.push(`${show(me.hand_count)} cards`);
    if (st.awaiting_colour === seat) bits.push("Name a colour!");
    if (st.awaiting && st.awaiting.spin === seat) bits.push("Spin the wheel!");
    $("seat-state").textContent = bits.join(" · ");
    $("s-top").textContent = cardInfo(st.top_card).label;
    $("s-colour").textContent = show(st.current_colour);
    document.body.classList.toggle("my-turn", st.turn === seat);
    wheel.render(st);
  }

  function onEvent(ev) {
    wheel.event(ev);
    const p = ev.payload || {};
    if (ev.type === "spin_needed" && p.seat === seat && navigator.vibrate) navigator.vibrate([80, 60, 80]);
  }

  for (const b of document.querySelectorAll("[data-action]")) b.addEventListener("click", () => act(b.dataset.action));
  for (const b of document.querySelectorAll("[data-colour]")) b.addEventListener("click", () => act("colour", { colour: b.dataset.colour }));
  UNO.live({ snapshot: render, state: render, event: onEvent });
})();
