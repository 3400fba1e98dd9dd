"use strict";
(() => {
  const form = document.getElementById("login-form");
  const msg = document.getElementById("login-msg");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await UNO.api("/api/login", { method: "POST", body: { pin: document.getElementById("pin").value } });
      const next = form.dataset.next || "/setup";
      window.location.assign(next.startsWith("/") && !next.startsWith("//") ? next : "/setup");
    } catch (err) {
      msg.textContent = err.message;
    }
  });
})();
