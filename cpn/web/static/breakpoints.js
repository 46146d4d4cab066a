// The breakpoints: the forms that add one (after a transition fires, when a
// place holds so many tokens, when a predicate of the net file holds), with
// their lists of names, and the list of those set, each with its remove.

import { element } from "./elements.js";

export function wireBreakpoints(page) {
  const { $ } = page;
  $("bp-transition-form").onsubmit = (event) => {
    event.preventDefault();
    page.command("breakpoint", { kind: "transition", transition: $("bp-transition").value });
  };
  $("bp-place-form").onsubmit = (event) => {
    event.preventDefault();
    page.command("breakpoint", { kind: "place", place: $("bp-place").value,
                                 op: $("bp-op").value, count: Number($("bp-count").value) });
  };
  $("bp-named-form").onsubmit = (event) => {
    event.preventDefault();
    page.command("breakpoint", { kind: "named", name: $("bp-named").value });
  };
}

export function renderBreakpoints(page, state) {
  const { $ } = page;
  fillSelect($("bp-place"), state.places.map((place) => place.path));
  fillSelect($("bp-transition"), state.transitions);
  $("bp-named-form").hidden = state.named.length === 0;
  fillSelect($("bp-named"), state.named);
  $("bp-list").replaceChildren(...state.breakpoints.map((text, k) => {
    const item = element("li", text);
    const remove = element("button", "remove");
    remove.onclick = () => page.command("unbreak", { number: k + 1 });
    item.appendChild(remove);
    return item;
  }));
}

// The names as the options of select, keeping the one chosen if it is still there.
function fillSelect(select, values) {
  const chosen = select.value;
  // An option's text may be shortened (fitNames): its value and title are the name.
  select.replaceChildren(...values.map((value) =>
    Object.assign(new Option(value, value), { title: value })));
  if (values.includes(chosen)) select.value = chosen;
}
