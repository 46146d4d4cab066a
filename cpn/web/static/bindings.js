// The enabled bindings: each with its number, a Fire button, the
// transition's name on one line and the values of its variables wrapped
// under it.  A Fire names the state it was shown in, which the session
// checks (a binding's number means nothing in another state).

import { element } from "./elements.js";
import { nameLine } from "./names.js";

export function renderBindings(page, state) {
  const { $ } = page;
  $("enabled-count").textContent = `(${state.enabled})`;
  $("waiting").textContent = state.waiting +
    (state.enabled > state.bindings.length ? `; the first ${state.bindings.length} shown` : "");
  $("binding-rows").replaceChildren(...state.bindings.map((binding) => {
    const row = element("tr");
    row.dataset.number = binding.number;
    const fire = element("button", "Fire", "fire");
    fire.onclick = () => page.command("fire", { number: binding.number,
                                                version: page.view.version });
    const cell = element("td", undefined, "fire-cell");
    cell.appendChild(fire);
    const described = element("td");
    described.append(nameLine(binding.transition), element("div", binding.values, "values"));
    row.append(element("td", String(binding.number), "number"), cell, described);
    return row;
  }));
}
