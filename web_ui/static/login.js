"use strict";
(() => {
  const form = document.getElementById("login-form");
  const msg = document.getElementById("login-msg");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await UNO.api("/api/login", { method: "POST", body: { pin: document.getElementById("pin").value } });
      // The server already keeps only paths on this site; check again (no "//", no "\\").
      const next = form.dataset.next || "/setup";
      const local = next.startsWith("/") && !next.startsWith("//") && !/[\\\s]/.test(next);
      window.location.assign(local ? next : "/setup");
    } catch (err) {
      msg.textContent = err.message;
    }
  });
})();
