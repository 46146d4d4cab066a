// Names too long for their line, shortened in the middle as the terminal
// does (Scheduler_module…/Allocate): both ends of a path say the most.  A
// line of the bindings list (nameLine) keeps the whole name as its title and
// an option of a list of names (select.names) as its value; fitNames()
// shortens their text to their width.  The widths are measured in their font
// with a canvas's measureText, so trying a length costs no layout.

const measuring = document.createElement("canvas").getContext("2d");

function shortened(name, width) {
  if (measuring.measureText(name).width <= width) return name;
  const characters = Array.from(name);
  const cut = (kept) => characters.slice(0, Math.floor(kept / 2)).join("") + "…" +
    characters.slice(characters.length - Math.ceil(kept / 2)).join("");
  let low = 0, high = characters.length - 1;  // how many characters to keep
  while (low < high) {
    const kept = Math.ceil((low + high) / 2);
    if (measuring.measureText(cut(kept)).width <= width) low = kept; else high = kept - 1;
  }
  return cut(low);
}

export function nameLine(name) {
  const line = document.createElement("div");
  line.className = "name-line";
  line.textContent = line.title = name;
  return line;
}

// Shorten the name lines under root, and the options of its name lists, to
// their width; under a root not laid out yet (a hidden notebook cell) they
// wait for its ResizeObserver.
export function fitNames(root) {
  const lines = root.querySelectorAll(".name-line");
  if (lines.length && lines[0].clientWidth) {  // all have one width
    fitTexts(lines, lines[0], lines[0].clientWidth - 1, (line) => line.title);
  }
  for (const list of root.querySelectorAll("select.names")) {
    const less = 28;  // the arrow and padding of a closed list
    if (list.clientWidth) {
      fitTexts(list.options, list, parseFloat(getComputedStyle(list).maxWidth) - less,
               (option) => option.value);
    }
  }
}

function fitTexts(items, styled, width, nameOf) {
  measuring.font = getComputedStyle(styled).font;
  const done = new Map();  // equal names, one text
  for (const item of items) {
    const name = nameOf(item);
    if (!done.has(name)) done.set(name, shortened(name, width));
    item.textContent = done.get(name);
  }
}
