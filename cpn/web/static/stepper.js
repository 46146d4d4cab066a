// The stepping page: draws what the session's "state" reading says and sends
// commands.  mount(root, transport) builds it inside root; the transport
// carries the requests of cpn/web/api.py: over HTTP for the served page
// (http.js), over a Jupyter comm for the notebook widget (comm.js), which
// also tells the page when the state changed elsewhere (onChanged).
// Text from the session is put in the page as text (textContent), never as
// markup, except the drawing, which Graphviz made from the net file.

import { MARKUP } from "./markup.js";
import { fitNames, nameLine } from "./names.js";
import { zoomable } from "./zoom.js";

// Narrower than this (CSS px), the page puts its panel under the drawing.
const NARROW = 1000;

// A time in full: 1234566 and 1234570.5 are not both 1.23457e+6.
function format(time) {
  return String(time);
}

function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}

export function mount(root, transport) {
  root.classList.add("cpn-stepper");
  root.innerHTML = MARKUP;
  const $ = (name) => root.querySelector("." + name);
  const view = { module: "", version: 0, place: null, logNext: 0 };
  const drawn = zoomable($("drawing"), { smaller: $("zoom-out"), bigger: $("zoom-in"),
                                         fit: $("zoom-fit"), level: $("zoom-level"),
                                         all: $("zoom") });

  function log(text, kind) {
    const lines = $("log");
    lines.appendChild(element("li", text, kind));
    lines.scrollTop = lines.scrollHeight;
  }

  // A command, then what it changed (or, for a run, its progress until it ends).
  async function command(name, body) {
    const { status, data } = await transport.command(name, body);
    if (status !== 200) log(data.error, "error");
    if (status === 0) return;  // no server: nothing to refresh
    if (data.running) await follow();
    else await refresh();
  }

  async function refresh() {
    const { status, data } = await transport.read("state", { module: view.module,
                                                             log_from: view.logNext });
    if (status === 409 && data.running) return follow();
    if (status !== 200) {
      log(data.error, "error");
      if (status && view.module) { view.module = ""; return refresh(); }
      return;
    }
    render(data);
    if (view.place) await showTokens(view.place);
    root.dataset.ready = `${data.step}@${data.time}#${data.version}`;
  }

  function setBusy(busy) {
    $("busy").hidden = !busy;
    $("stop").disabled = !busy;
    $("progress-row").hidden = !busy;
    // every control but Stop: the session refuses them while a run is on
    for (const button of root.querySelectorAll(
      ".controls button, .bindings button, aside button, .load-trace")) {
      if (!button.classList.contains("stop")) button.disabled = busy;
    }
    if (busy) delete root.dataset.ready;
  }

  // Poll a run's progress until it ends, then draw where it got to.
  async function follow() {
    setBusy(true);
    for (;;) {
      const { status, data: progress } = await transport.read("progress");
      if (status === 0) {  // no server, or kernel: the run's end cannot be drawn
        log(progress.error, "error");
        return setBusy(false);
      }
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
    fitNames(root);
    for (const line of state.log) log(line.text, line.kind);
    view.logNext = state.log_next;
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
        "no drawing (apt-get install graphviz); the places are listed in the panel.", "note"));
      return drawn(null);
    }
    drawing.innerHTML = state.svg;
    drawn(drawing.querySelector("svg"), view.module);
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

  // A binding: its number, a Fire button, the transition's name on one line
  // and the values of its variables wrapped under it.
  function renderBindings(state) {
    $("enabled-count").textContent = `(${state.enabled})`;
    $("waiting").textContent = state.waiting +
      (state.enabled > state.bindings.length ? `; the first ${state.bindings.length} shown` : "");
    $("binding-rows").replaceChildren(...state.bindings.map((binding) => {
      const row = element("tr");
      row.dataset.number = binding.number;
      const fire = element("button", "Fire", "fire");
      fire.onclick = () => command("fire", { number: binding.number, version: view.version });
      const cell = element("td", undefined, "fire-cell");
      cell.appendChild(fire);
      const described = element("td");
      described.append(nameLine(binding.transition), element("div", binding.values, "values"));
      row.append(element("td", String(binding.number), "number"), cell, described);
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
    // An option's text may be shortened (fitNames): its value and title are the name.
    select.replaceChildren(...values.map((value) =>
      Object.assign(new Option(value, value), { title: value })));
    if (values.includes(chosen)) select.value = chosen;
  }

  function renderBreakpoints(state) {
    $("bp-named-form").hidden = state.named.length === 0;
    fillSelect($("bp-named"), state.named);
    $("bp-list").replaceChildren(...state.breakpoints.map((text, k) => {
      const item = element("li", text);
      const remove = element("button", "remove");
      remove.onclick = () => command("unbreak", { number: k + 1 });
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
    const { status, data: table } = await transport.read("tokens", { place });
    if (status !== 200) return;
    $("tokens").hidden = false;
    $("tokens-place").textContent = `${place} (${table.count})`;
    $("tokens-note").textContent = table.note +
      (table.rows.length < table.distinct
        ? ` the first ${table.rows.length} of ${table.distinct} shown` : "");
    const head = element("tr");
    head.append(...table.columns.map((column) => element("th", column)));
    $("tokens-table").replaceChildren(head, ...table.rows.map((cells) => {
      const row = element("tr");
      row.append(...cells.map((cell) => element("td", cell, "values")));
      return row;
    }));
  }

  async function saveTrace() {
    const { status, data } = await transport.read("trace");
    if (status !== 200) return log(data.error, "error");
    const link = element("a");
    link.href = URL.createObjectURL(new Blob([data.text], { type: "application/jsonl" }));
    link.download = data.name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  }

  $("step").onclick = () => command("step");
  $("advance").onclick = () => command("advance");
  $("undo").onclick = () => command("undo");
  $("redo").onclick = () => command("redo");
  // An empty field is no number (Number("") is 0): said, not sent.
  const given = (name, what) => {
    const text = $(name).value.trim();
    if (text === "") log(`give ${what}`, "hint");
    return text === "" ? null : Number(text);
  };
  $("run-steps-go").onclick = () => {
    const steps = given("run-steps", "a number of steps to run");
    if (steps !== null) command("run", { steps });
  };
  $("run-until-go").onclick = () => {
    const until = given("run-until", "a time to run to");
    if (until !== null) command("run", { until });
  };
  $("run-breakpoint").onclick = () => command("run", {});
  $("stop").onclick = () => transport.command("stop");
  $("save-trace").onclick = saveTrace;
  $("module").onchange = (event) => open(event.target.value);
  $("bp-transition-form").onsubmit = (event) => {
    event.preventDefault();
    command("breakpoint", { kind: "transition", transition: $("bp-transition").value });
  };
  $("bp-place-form").onsubmit = (event) => {
    event.preventDefault();
    command("breakpoint", { kind: "place", place: $("bp-place").value,
                            op: $("bp-op").value, count: Number($("bp-count").value) });
  };
  $("bp-named-form").onsubmit = (event) => {
    event.preventDefault();
    command("breakpoint", { kind: "named", name: $("bp-named").value });
  };
  $("load-trace").onchange = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    await command("load", { text: await file.text(), name: file.name });
    event.target.value = "";
  };
  // Too narrow for the drawing beside the panel (a notebook's cell): the
  // panel goes under the drawing, which keeps the width.
  new ResizeObserver(() => {
    root.classList.toggle("narrow", root.clientWidth < NARROW);
    fitNames(root);
  }).observe(root);
  // Changed elsewhere (a notebook cell, another view): drawn again, unless
  // this view shows that state already or is following a run of its own.
  if (transport.onChanged) {
    transport.onChanged(({ step, time, version, running }) => {
      const shown = root.dataset.ready;
      if (shown !== undefined && (running || shown !== `${step}@${time}#${version}`)) refresh();
    });
  }
  // A kernel that had not answered for long (busy with another cell) does
  // again: what it did meanwhile is drawn.
  if (transport.onRevived) {
    transport.onRevived(() => {
      log("the kernel answers again", "info");
      refresh();
    });
  }
  refresh();
}
