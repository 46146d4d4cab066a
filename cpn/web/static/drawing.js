// The drawing of the module shown, and the ways to choose that module: the
// list of modules, the crumbs of its path, a click on a module's node.  A
// click on a place's node shows its tokens.

import { element } from "./elements.js";
import { showTokens } from "./places.js";

// The module at path ("" the top) is drawn, from the next reading on.
function openModule(page, path) {
  page.view.module = path;
  page.refresh();
}

export function wireModules(page) {
  page.$("module").onchange = (event) => openModule(page, event.target.value);
}

export function renderModules(page, state) {
  const { $, view } = page;
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
  top.onclick = () => openModule(page, "");
  crumbs.appendChild(top);
  parts.forEach((part, k) => {
    crumbs.appendChild(document.createTextNode(" › "));
    const crumb = element("a", part);
    crumb.onclick = () => openModule(page, parts.slice(0, k + 1).join("/"));
    crumbs.appendChild(crumb);
  });
}

export function renderDrawing(page, state) {
  const drawing = page.$("drawing");
  if (state.svg === null) {
    drawing.replaceChildren(element("p", "Graphviz's dot program is not installed: " +
      "no drawing (apt-get install graphviz); the places are listed in the panel.", "note"));
    return page.drawn(null);
  }
  drawing.innerHTML = state.svg;
  page.drawn(drawing.querySelector("svg"), page.view.module);
  for (const node of drawing.querySelectorAll("g.node")) {
    const [kind, ...rest] = node.id.split(":");
    const path = rest.join(":");
    if (kind === "module") node.addEventListener("click", () => openModule(page, path));
    if (kind === "place") {
      node.addEventListener("click", () => showTokens(page, path));
      if (path === page.view.place) node.classList.add("chosen");
    }
  }
}
