/* Camera page: say so in words when the table has no camera frames. */
"use strict";
(() => {
  const note = document.getElementById("camera-note");
  UNO.api("/api/camera").then(({ frame }) => {
    const live = frame !== null && frame !== undefined;
    note.textContent = live
      ? "Live view from the table's camera (annotated by the card reader)."
      : "No camera frames: the table runs without a camera, or it has not started yet.";
    note.dataset.state = live ? "live" : "none";
  }).catch(() => {});
  UNO.live({});
})();
