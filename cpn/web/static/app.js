// The stepping page: draws what /api/state says and sends commands as JSON.
// Text from the server is put in the page as text (textContent), never as
// markup, except the drawing, which Graphviz made from the net file.
"use strict";

const view = { module: "", version: 0, place: null, places: [] };
const $ = (id) => document.getElementById(id);

function format(time) {
  return Number.isInteger(time) ? String(time) : String(+time.toPrecision(6));
}

function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}

function log(text, kind) {
  const lines = $("log");
  lines.appendChild(element("li", text, kind));
  lines.scrollTop = lines.scrollHeight;
}

async function send(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  });
  const answer = await response.json();
  if (!response.ok) log(answer.error, "error");
  return answer;
}

// A command, then what it changed (or, for a run, its progress until it ends).
async function command(path, body) {
  const answer = await send(path, body);
  if (answer.running) await follow();
  else await refresh();
}

async function refresh() {
  const response = await fetch("/api/state?module=" + encodeURIComponent(view.module));
  const state = await response.json();
  if (response.status === 409 && state.running) return follow();
  if (!response.ok) {
    log(state.error, "error");
    if (view.module) { view.module = ""; return refresh(); }
    return;
  }
  render(state);
  if (view.place) await showTokens(view.place);
  document.body.dataset.ready = String(state.step) + "@" + state.time + "#" + state.version;
}

function setBusy(busy) {
  $("busy").hidden = !busy;
  $("stop").disabled = !busy;
  $("progress-row").hidden = !busy;
  for (const button of document.querySelectorAll("#controls button, #bindings button")) {
    if (button.id !== "stop") button.disabled = busy;
  }
  if (busy) delete document.body.dataset.ready;
}

// Poll a run's progress until it ends, then draw where it got to.
async function follow() {
  setBusy(true);
  for (;;) {
    const progress = await (await fetch("/api/progress")).json();
    const fired = progress.steps - progress.from_steps;
    let fraction = null;
    if (progress.goal_steps) fraction = fired / progress.goal_steps;
    if (progress.goal_time > progress.from_time) {
      fraction = (progress.time - progress.from_time) / (progress.goal_time - progress.from_time);
    }
    const bar = $("progress");
    if (fraction === null) bar.removeAttribute("value"); else bar.value = fraction;
    $("progress-text").textContent = `${fired} fired, time ${format(progress.time)}`;
    $("clock").textContent = `time ${format(progress.time)}   step ${progress.steps}`;
    if (!progress.running) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  setBusy(false);
  await refresh();
}

function render(state) {
  view.version = state.version;
  view.places = state.places.map((place) => place.path);
  document.title = `cpn step ${state.net}`;
  $("net").textContent = state.net;
  $("clock").textContent = `time ${format(state.time)}   step ${state.step}`;
  $("undo").disabled = !state.can_undo;
  $("redo").disabled = !state.can_redo;
  $("advance").disabled = state.enabled > 0 || state.waiting.includes("dead");
  renderModules(state);
  renderDrawing(state);
  renderBindings(state);
  renderPlaces(state);
  renderBreakpoints(state);
  for (const line of state.log) log(line.text, line.kind);
}

function renderModules(state) {
  const select = $("module");
  select.replaceChildren(...["", ...state.modules].map((path) => {
    const option = element("option", path || `${state.net} (top)`);
    option.value = path;
    return option;
  }));
  select.value = view.module;
  const crumbs = $("crumbs");
  crumbs.replaceChildren();
  const parts = view.module ? view.module.split("/") : [];
  const top = element("a", state.net);
  top.onclick = () => open("");
  crumbs.appendChild(top);
  parts.forEach((part, k) => {
    crumbs.appendChild(document.createTextNode(" › "));
    const crumb = element("a", part);
    crumb.onclick = () => open(parts.slice(0, k + 1).join("/"));
    crumbs.appendChild(crumb);
  });
}

function open(module) {
  view.module = module;
  refresh();
}

function renderDrawing(state) {
  const drawing = $("drawing");
  if (state.svg === null) {
    drawing.replaceChildren(element("p", "Graphviz's dot program is not installed: " +
      "no drawing (apt-get install graphviz); the places are listed on the right.", "note"));
    return;
  }
  drawing.innerHTML = state.svg;
  for (const node of drawing.querySelectorAll("g.node")) {
    const [kind, ...rest] = node.id.split(":");
    const path = rest.join(":");
    if (kind === "module") node.addEventListener("click", () => open(path));
    if (kind === "place") {
      node.addEventListener("click", () => showTokens(path));
      if (path === view.place) node.classList.add("chosen");
    }
  }
}

function renderBindings(state) {
  $("enabled-count").textContent = `(${state.enabled})`;
  $("waiting").textContent = state.waiting +
    (state.enabled > state.bindings.length ? `; the first ${state.bindings.length} shown` : "");
  $("binding-rows").replaceChildren(...state.bindings.map((binding) => {
    const row = element("tr");
    row.dataset.number = binding.number;
    const fire = element("button", "Fire", "fire");
    fire.onclick = () => command("/api/fire", { number: binding.number, version: view.version });
    const cell = element("td");
    cell.appendChild(fire);
    row.append(element("td", String(binding.number), "number"), cell,
               element("td", binding.transition), element("td", binding.values, "values"));
    return row;
  }));
}

function renderPlaces(state) {
  $("place-rows").replaceChildren(...state.places.map((place) => {
    const row = element("tr", undefined, place.count ? "" : "empty");
    row.dataset.place = place.path;
    if (place.path === view.place) row.classList.add("chosen");
    row.append(element("td", place.path), element("td", String(place.count), "number"),
               element("td", place.colour + (place.timed ? " timed" : "")));
    row.onclick = () => showTokens(place.path);
    return row;
  }));
  fillSelect($("bp-place"), state.places.map((place) => place.path));
  fillSelect($("bp-transition"), state.transitions);
}

function fillSelect(select, values) {
  const chosen = select.value;
  select.replaceChildren(...values.map((value) => element("option", value)));
  if (values.includes(chosen)) select.value = chosen;
}

function renderBreakpoints(state) {
  $("bp-list").replaceChildren(...state.breakpoints.map((text, k) => {
    const item = element("li", text);
    const remove = element("button", "remove");
    remove.onclick = () => command("/api/breakpoints/remove", { number: k + 1 });
    item.appendChild(remove);
    return item;
  }));
}

async function showTokens(place) {
  view.place = place;
  for (const row of $("place-rows").children) {
    row.classList.toggle("chosen", row.dataset.place === place);
  }
  for (const node of $("drawing").querySelectorAll('g.node[id^="place:"]')) {
    node.classList.toggle("chosen", node.id === "place:" + place);
  }
  const response = await fetch("/api/tokens?place=" + encodeURIComponent(place));
  const table = await response.json();
  if (!response.ok) return;
  $("tokens").hidden = false;
  $("tokens-place").textContent = `${place} (${table.count})`;
  $("tokens-note").textContent = table.note +
    (table.rows.length < table.distinct ? ` the first ${table.rows.length} of ${table.distinct} shown` : "");
  const head = element("tr");
  head.append(...table.columns.map((column) => element("th", column)));
  $("tokens-table").replaceChildren(head, ...table.rows.map((cells) => {
    const row = element("tr");
    row.append(...cells.map((cell) => element("td", cell, "values")));
    return row;
  }));
}

function wire() {
  $("step").onclick = () => command("/api/step");
  $("advance").onclick = () => command("/api/advance");
  $("undo").onclick = () => command("/api/undo");
  $("redo").onclick = () => command("/api/redo");
  $("run-steps-go").onclick = () => command("/api/run", { steps: Number($("run-steps").value) });
  $("run-until-go").onclick = () => command("/api/run", { until: Number($("run-until").value) });
  $("run-breakpoint").onclick = () => command("/api/run", {});
  $("stop").onclick = () => send("/api/stop");
  $("module").onchange = (event) => open(event.target.value);
  $("bp-transition-form").onsubmit = (event) => {
    event.preventDefault();
    command("/api/breakpoints", { kind: "transition", transition: $("bp-transition").value });
  };
  $("bp-place-form").onsubmit = (event) => {
    event.preventDefault();
    command("/api/breakpoints", { kind: "place", place: $("bp-place").value,
                                  op: $("bp-op").value, count: Number($("bp-count").value) });
  };
  $("load-trace").onchange = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    await command("/api/trace", { text: await file.text(), name: file.name });
    event.target.value = "";
  };
}

wire();
refresh();
