/* Setup page (host): players, preset, and every rule option as a form generated from the
   rules JSON schema, so a new house rule in table/rules.py appears here with no web change. */
"use strict";
(() => {
  const { el, show, api, command, toast } = UNO;
  const $ = (id) => document.getElementById(id);
  let schema = null;
  let presets = [];
  let names = [];

  function deref(node) {
    let n = node || {};
    for (let guard = 0; guard < 10; guard++) {
      if (n.$ref) {
        const path = n.$ref.replace(/^#\//, "").split("/");
        let target = schema;
        for (const part of path) target = target[part];
        const { $ref, ...rest } = n;
        n = { ...target, ...rest };
      } else if (n.allOf && n.allOf.length === 1) {
        const { allOf, ...rest } = n;
        n = { ...allOf[0], ...rest };
      } else break;
    }
    if (n.anyOf) {
      const real = n.anyOf.filter((a) => a.type !== "null");
      if (real.length === 1) {
        const { anyOf, ...rest } = n;
        return { ...deref(real[0]), ...rest, nullable: real.length < n.anyOf.length };
      }
    }
    return n;
  }

  function label(name, node) {
    return node.title || name.replace(/_/g, " ");
  }

  function fieldFor(name, raw, value, path) {
    const node = deref(raw);
    const id = `r-${path.join("-")}`;
    const dataset = { path: path.join("."), type: node.enum ? "enum" : node.type || "json" };
    const help = node.description ? el("small", { class: "help", text: node.description }) : null;
    if (node.type === "object" && node.properties) {
      return el("fieldset", { class: "rules-group", dataset: { group: path.join(".") } },
        el("legend", { text: label(name, node) }), help,
        ...Object.entries(node.properties).map(([k, sub]) => fieldFor(k, sub, (value || {})[k], [...path, k])));
    }
    let input;
    if (node.enum) {
      input = el("select", { id, dataset }, ...(node.nullable ? [el("option", { value: "", text: "(none)" })] : []),
        ...node.enum.map((v) => el("option", { value: JSON.stringify(v), text: String(v) })));
      input.value = value === null || value === undefined ? "" : JSON.stringify(value);
      dataset.type = "enum";
    } else if (node.type === "boolean") {
      input = el("input", { id, type: "checkbox", dataset });
      input.checked = !!value;
      return el("div", { class: "field check" }, input, el("label", { for: id, text: label(name, node) }), help);
    } else if (node.type === "integer" || node.type === "number") {
      const min = node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + (node.type === "integer" ? 1 : 0) : undefined);
      const max = node.maximum ?? (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum - (node.type === "integer" ? 1 : 0) : undefined);
      input = el("input", { id, type: "number", inputmode: "numeric", min, max, step: node.type === "integer" ? 1 : "any", dataset });
      input.value = value === null || value === undefined ? "" : value;
    } else if (node.type === "string") {
      input = el("input", { id, type: "text", maxlength: node.maxLength, dataset });
      input.value = value ?? "";
    } else {
      dataset.type = "json"; // lists and anything else are edited as JSON (set before el() copies it)
      input = el("textarea", { id, rows: 2, dataset });
      input.value = JSON.stringify(value ?? null);
    }
    return el("div", { class: "field" }, el("label", { for: id, text: label(name, node) }), input, help);
  }

  function collect() {
    const out = {};
    for (const input of $("rules-form").querySelectorAll("[data-path]")) {
      const path = input.dataset.path.split(".");
      let v;
      const t = input.dataset.type;
      if (t === "boolean") v = input.checked;
      else if (t === "enum") v = input.value === "" ? null : JSON.parse(input.value);
      else if (t === "integer" || t === "number") v = input.value === "" ? null : Number(input.value);
      else if (t === "json") { try { v = JSON.parse(input.value); } catch (e) { throw new Error(`${input.dataset.path}: not valid JSON`); } }
      else v = input.value;
      let node = out;
      for (const part of path.slice(0, -1)) node = node[part] = node[part] || {};
      node[path[path.length - 1]] = v;
    }
    return out;
  }

  function renderRules(values) {
    $("rules-form").replaceChildren(...Object.entries(schema.properties).map(([k, sub]) => fieldFor(k, sub, values[k], [k])));
    const players = $("rules-form").querySelector('[data-path="players"]');
    if (players) players.addEventListener("input", () => renderNames(Number(players.value) || 0));
    renderNames(values.players || names.length);
  }

  function renderNames(n) {
    const box = $("names");
    const current = [...box.querySelectorAll("input")].map((i) => i.value);
    if (current.length) names = current.concat(names.slice(current.length));
    const count = Math.max(0, Math.min(10, n));
    box.replaceChildren(...Array.from({ length: count }, (_, i) =>
      el("li", {}, el("label", { for: `name-${i}`, text: `Seat ${i}` }),
        el("input", { id: `name-${i}`, name: `name-${i}`, value: names[i] || `Player ${i + 1}`, maxlength: 24, required: true }))));
  }

  async function load() {
    const [rules, snap] = await Promise.all([api("/api/rules"), api("/api/snapshot")]);
    schema = rules.schema;
    presets = rules.presets || [];
    names = (snap.seats || []).map((s) => s.name || "");
    const sel = $("preset");
    sel.replaceChildren(...presets.map((p) => el("option", { value: p.name, text: p.name })));
    sel.value = rules.preset || (rules.current && rules.current.name) || (presets[0] && presets[0].name) || "";
    describePreset();
    renderRules(rules.current || {});
  }

  function describePreset() {
    const p = presets.find((x) => x.name === $("preset").value);
    $("preset-desc").textContent = p && p.description ? p.description : "";
  }

  async function send(kind) {
    let rules;
    try { rules = collect(); } catch (e) { toast(e.message, false); return; }
    const cmd = { kind, preset: $("preset").value, rules };
    if (kind === "setup") cmd.players = [...$("names").querySelectorAll("input")].map((i, seat) => ({ seat, name: i.value.trim() }));
    try {
      await command(cmd, kind === "setup" ? "Setup saved" : "Rules changed");
      $("setup-msg").textContent = kind === "setup" ? "Setup saved." : "Rules changed.";
      await load();
    } catch (e) {
      $("setup-msg").textContent = e.message;
    }
  }

  async function seatCodes() {
    try {
      const data = await api("/api/host/seats");
      $("seat-codes").replaceChildren(...data.seats.map((s) => el("li", {},
        el("img", { src: s.qr, alt: `QR code to join seat ${s.seat}`, width: 120, height: 120, loading: "lazy" }),
        el("a", { href: s.url, text: `Seat ${s.seat} link` }))));
    } catch (e) { toast(`seat codes: ${e.message}`, false); }
  }

  $("preset").addEventListener("change", describePreset);
  /* A preset may list only what it changes: lay it over the schema's defaults. */
  function defaults(raw) {
    const node = deref(raw);
    if (node.type === "object" && node.properties) {
      return Object.fromEntries(Object.entries(node.properties).map(([k, sub]) => [k, defaults(sub)]));
    }
    return node.default;
  }
  function merge(base, over) {
    if (!over || typeof over !== "object" || Array.isArray(over)) return over === undefined ? base : over;
    const out = { ...(base || {}) };
    for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v);
    return out;
  }
  $("load-preset").addEventListener("click", () => {
    const p = presets.find((x) => x.name === $("preset").value);
    if (p) renderRules(merge(defaults(schema), p.values || {}));
  });
  $("setup-form").addEventListener("submit", (e) => { e.preventDefault(); send("setup"); });
  $("apply-rules").addEventListener("click", () => send("rules"));
  for (const b of document.querySelectorAll("button[data-cmd]")) {
    b.addEventListener("click", () => {
      if (b.dataset.confirm && !window.confirm(b.dataset.confirm)) return;
      command({ kind: b.dataset.cmd }, `${b.textContent}: done`).catch(() => {});
    });
  }
  load().catch((e) => toast(`setup: ${e.message}`, false));
  seatCodes();
  UNO.live({});
})();
