// The places' table, and the tokens of the place chosen in it (or in the
// drawing): that place stays chosen, its tokens read again with each state.

import { element } from "./elements.js";

export function renderPlaces(page, state) {
  page.$("place-rows").replaceChildren(...state.places.map((place) => {
    const row = element("tr", undefined, place.count ? "" : "empty");
    row.dataset.place = place.path;
    if (place.path === page.view.place) row.classList.add("chosen");
    row.append(element("td", place.path), element("td", String(place.count), "number"),
               element("td", place.colour + (place.timed ? " timed" : "")));
    row.onclick = () => showTokens(page, place.path);
    return row;
  }));
}

export async function showTokens(page, place) {
  const { $ } = page;
  page.view.place = place;
  for (const row of $("place-rows").children) {
    row.classList.toggle("chosen", row.dataset.place === place);
  }
  for (const node of $("drawing").querySelectorAll('g.node[id^="place:"]')) {
    node.classList.toggle("chosen", node.id === "place:" + place);
  }
  const { status, data: table } = await page.transport.read("tokens", { place });
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
