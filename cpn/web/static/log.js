// The log at the foot of the panel: the lines the session wrote (each shown
// once: a reading asks for those after the last one shown), and the page's
// own errors and hints.

import { element } from "./elements.js";

export function log(page, text, kind) {
  const lines = page.$("log");
  lines.appendChild(element("li", text, kind));
  lines.scrollTop = lines.scrollHeight;
}

export function renderLog(page, state) {
  for (const line of state.log) log(page, line.text, line.kind);
  page.view.logNext = state.log_next;
}
