// The explorer file's page (attnviz/export/explorer_page.py writes it in): controls for a reader's choice, the choice
// kept in the URL's fragment, and the chosen figure looked up and drawn by plotly.js. Every figure was drawn by
// attnviz when the file was made; nothing here computes one. `figureKey` mirrors explorer_file.figure_key.
"use strict";

(function () {
  const info = JSON.parse(document.getElementById("attnviz-explorer-info").textContent);
  const THRESHOLD_VIEWS = ["alignment", "lines"];
  const ROLLOUT = "rollout";
  let payload = null;

  // ---- unpacking: base64 → gzip → text, by the browser's own DecompressionStream (no network) ----
  async function unpacked(id) {
    const binary = atob(document.getElementById(id).textContent.trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return await new Response(stream).text();
  }

  function resolve(value) {
    if (Array.isArray(value)) return value.map(resolve);
    if (value !== null && typeof value === "object") {
      const names = Object.keys(value);
      if (names.length === 1 && names[0] === "$ref") return resolve(payload.nodes[value.$ref]);
      const copy = {};
      for (const name of names) copy[name] = resolve(value[name]);
      return copy;
    }
    return value;
  }

  // ---- the choice: what the reader picked, normalised to a figure the file holds ----
  function t(key, values) {
    const lang = current.lang;
    let text = (info.strings[lang] && info.strings[lang][key]) || info.strings.en[key] || key;
    for (const [name, value] of Object.entries(values || {})) text = text.split("{" + name + "}").join(value);
    return text;
  }

  function formatThreshold(value) {
    return String(Number(value)); // Python's f"{value:g}" for the thresholds a file holds (0.05, 0.1, …)
  }

  function figureKey(choice) {
    let { aggregation, layer, head, threshold } = choice;
    if (!THRESHOLD_VIEWS.includes(choice.view)) threshold = null;
    if (choice.view === "grid") {
      aggregation = aggregation === ROLLOUT ? ROLLOUT : null;
      layer = null;
      head = null;
    } else {
      if (aggregation !== "head" && aggregation !== "layer") layer = null;
      if (aggregation !== "head") head = null;
    }
    const fields = [
      choice.measure, choice.kind, choice.view, aggregation, layer, head, choice.words ? 1 : 0,
      threshold === null ? null : formatThreshold(threshold), choice.lang,
    ];
    return fields.map((value) => (value === null || value === undefined ? "-" : String(value))).join("|");
  }

  function fromFragment() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const asked = { ...info.default };
    for (const name of Object.keys(asked)) {
      if (!params.has(name)) continue;
      const raw = params.get(name);
      if (name === "words") asked.words = raw === "1" || raw === "true";
      else if (name === "layer" || name === "head") asked[name] = Number.parseInt(raw, 10);
      else if (name === "threshold") asked.threshold = Number.parseFloat(raw);
      else asked[name] = raw;
    }
    return asked;
  }

  function toFragment(choice) {
    const params = new URLSearchParams();
    for (const name of Object.keys(info.default)) {
      const value = choice[name];
      params.set(name, name === "words" ? (value ? "1" : "0") : String(value));
    }
    return "#" + params.toString();
  }

  // The nearest choice the file holds: each field kept when the file offers it, else the first one offered.
  function held(asked) {
    const pick = (value, offered) => (offered.includes(value) ? value : offered[0]);
    const choice = { ...asked };
    choice.lang = pick(asked.lang, info.langs);
    choice.measure = pick(asked.measure, Object.keys(info.menu));
    const maps = info.menu[choice.measure];
    choice.kind = pick(asked.kind, Object.keys(maps));
    const menu = maps[choice.kind];
    choice.view = pick(asked.view, menu.views);
    choice.aggregation = pick(asked.aggregation, menu.aggregations);
    choice.layer = pick(asked.layer, [...Array(menu.layers).keys()]);
    choice.head = pick(asked.head, [...Array(menu.heads).keys()]);
    choice.words = pick(asked.words, info.words);
    choice.threshold = pick(asked.threshold, info.thresholds);
    return choice;
  }

  // ---- the controls ----
  function select(name, label, options, value, describe) {
    const wrap = document.createElement("label");
    wrap.className = "control";
    wrap.append(label);
    const field = document.createElement("select");
    field.name = name;
    field.setAttribute("aria-label", label);
    for (const option of options) {
      const element = document.createElement("option");
      element.value = String(option);
      element.textContent = describe ? describe(option) : String(option);
      element.selected = option === value;
      field.append(element);
    }
    field.addEventListener("change", () => {
      const chosen = options[field.selectedIndex];
      location.hash = toFragment(held({ ...current, [name]: chosen }));
    });
    wrap.append(field);
    return wrap;
  }

  function controls(choice) {
    const menu = info.menu[choice.measure][choice.kind];
    const layerOff = choice.aggregation !== "head" && choice.aggregation !== "layer";
    const parts = [
      select("lang", t("language"), info.langs, choice.lang, (lang) => info.languageNames[lang]),
      select("kind", t("explorer_map"), Object.keys(info.menu[choice.measure]), choice.kind, (k) => t("kind_" + k)),
    ];
    if (Object.keys(info.menu).length > 1) {
      parts.push(select("measure", t("measure"), Object.keys(info.menu), choice.measure, (m) => t("measure_choice." + m)));
    }
    parts.push(
      select("view", t("explorer_view"), menu.views, choice.view, (v) => t("explorer_view_" + v)),
      select("aggregation", t("aggregation"), menu.aggregations, choice.aggregation, (a) => t("aggregation_" + a)),
      select("layer", t("layer"), [...Array(menu.layers).keys()], choice.layer),
      select("head", t("head"), [...Array(menu.heads).keys()], choice.head),
      select("words", t("explorer_tokens"), info.words, choice.words,
        (w) => t(w ? "explorer_tokens_words" : "explorer_tokens_pieces")),
      select("threshold", t("threshold"), info.thresholds, choice.threshold, formatThreshold),
    );
    const box = document.getElementById("controls");
    box.replaceChildren(...parts);
    box.querySelector("select[name=layer]").disabled = layerOff || choice.view === "grid";
    box.querySelector("select[name=head]").disabled = choice.aggregation !== "head" || choice.view === "grid";
    box.querySelector("select[name=threshold]").disabled = !THRESHOLD_VIEWS.includes(choice.view);
  }

  function texts() {
    document.documentElement.lang = current.lang === "zh" ? "zh-CN" : "en";
    for (const element of document.querySelectorAll("[data-text]")) {
      element.textContent = t(element.dataset.text, JSON.parse(element.dataset.values || "{}"));
    }
  }

  // ---- drawing ----
  let current = { ...info.default };

  function figure(choice) {
    return resolve(payload.figures[figureKey(choice)]);
  }

  async function draw() {
    const asked = fromFragment();
    current = held(asked);
    const note = document.getElementById("note");
    const changed = Object.keys(asked).filter((name) => asked[name] !== current[name]);
    note.textContent = location.hash && changed.length ? t("explorer_not_held", { fields: changed.join(", ") }) : "";
    texts();
    controls(current);
    const shown = figure(current);
    const layout = shown.layout || {};
    layout.font = { ...(layout.font || {}) };
    if (info.fontFamily) layout.font.family = info.fontFamily + ", " + (layout.font.family || "sans-serif");
    await Plotly.react("figure", shown.data || [], layout, info.config);
    document.body.dataset.shown = figureKey(current);
  }

  async function start() {
    const status = document.getElementById("status");
    if (typeof DecompressionStream === "undefined") {
      status.textContent = info.strings[info.default.lang].explorer_no_decompression;
      return;
    }
    const library = document.createElement("script");
    library.textContent = await unpacked("attnviz-plotly");
    document.head.append(library);
    payload = JSON.parse(await unpacked("attnviz-figures"));
    status.textContent = "";
    window.attnvizExplorer = { figure, figureKey, held, choice: () => ({ ...current }), keys: () => Object.keys(payload.figures) };
    window.addEventListener("hashchange", draw);
    await draw();
    document.body.dataset.ready = "1";
  }

  start().catch((error) => {
    document.getElementById("status").textContent = String(error);
    document.body.dataset.failed = "1";
  });
})();
