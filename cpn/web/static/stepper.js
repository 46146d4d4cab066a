// The stepping page: draws what the session's "state" reading says and sends
// commands.  mount(root, transport) builds it inside root; the transport
// carries the requests of cpn/web/api.py: over HTTP for the served page
// (http.js), over a Jupyter comm for the notebook widget (comm.js), which
// also tells the page when the state changed elsewhere (onChanged).  Text
// from the session is put in the page as text (textContent), never as
// markup, except the drawing, which Graphviz made from the net file.
//
// Each part of the page is a file of its own, its functions given the page:
// its root, its elements by class ($), the transport, what the view shows
// (view), the drawing's zoom (drawn), and the two ways to talk to the
// session, command and refresh, as methods (a part that imported them from
// here would import the file that imports it).

import { MARKUP } from "./markup.js";
import { fitNames } from "./names.js";
import { zoomable } from "./zoom.js";
import { format } from "./elements.js";
import { log, renderLog } from "./log.js";
import { renderPlaces, showTokens } from "./places.js";
import { renderDrawing, renderModules, wireModules } from "./drawing.js";
import { renderBindings } from "./bindings.js";
import { renderBreakpoints, wireBreakpoints } from "./breakpoints.js";
import { wireTrace } from "./trace.js";
import { follow, renderRuns, wireRuns } from "./running.js";

// Narrower than this (CSS px), the page puts its panel under the drawing.
const NARROW = 1000;

export function mount(root, transport) {
  root.classList.add("cpn-stepper");
  root.innerHTML = MARKUP;
  const $ = (name) => root.querySelector("." + name);
  const page = {
    root, transport, $,
    view: { module: "", version: 0, place: null, logNext: 0 },
    drawn: zoomable($("drawing"), { smaller: $("zoom-out"), bigger: $("zoom-in"),
                                    fit: $("zoom-fit"), level: $("zoom-level"),
                                    all: $("zoom") }),
    command: (name, body) => command(page, name, body),
    refresh: () => refresh(page),
  };
  wireRuns(page);
  wireTrace(page);
  wireModules(page);
  wireBreakpoints(page);
  keepCurrent(page);
  page.refresh();
}

// A command, then what it changed (or, for a run, its progress until it ends).
async function command(page, name, body) {
  const { status, data } = await page.transport.command(name, body);
  if (status !== 200) log(page, data.error, "error");
  if (status === 0) return;  // no server: nothing to refresh
  if (data.running) await follow(page);
  else await refresh(page);
}

async function refresh(page) {
  const { view } = page;
  const { status, data } = await page.transport.read("state", { module: view.module,
                                                                log_from: view.logNext });
  if (status === 409 && data.running) return follow(page);
  if (status !== 200) {
    log(page, data.error, "error");
    if (status && view.module) { view.module = ""; return refresh(page); }
    return;
  }
  render(page, data);
  if (view.place) await showTokens(page, view.place);
  page.root.dataset.ready = `${data.step}@${data.time}#${data.version}`;
}

function render(page, state) {
  const { $ } = page;
  page.view.version = state.version;
  $("net").textContent = state.net;
  $("clock").textContent = `time ${format(state.time)}   step ${state.step}`;
  renderRuns(page, state);
  renderModules(page, state);
  renderDrawing(page, state);
  renderBindings(page, state);
  renderPlaces(page, state);
  renderBreakpoints(page, state);
  fitNames(page.root);
  renderLog(page, state);
}

// The page kept fitting its width, and drawing the state anew when it changed
// elsewhere.
function keepCurrent(page) {
  const { root, transport } = page;
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
      if (shown !== undefined && (running || shown !== `${step}@${time}#${version}`)) refresh(page);
    });
  }
  // A kernel that had not answered for long (busy with another cell) does
  // again: what it did meanwhile is drawn.
  if (transport.onRevived) {
    transport.onRevived(() => {
      log(page, "the kernel answers again", "info");
      refresh(page);
    });
  }
}
