// The drawing at a size its names can be read at.  Shrunk to the width of a
// notebook's cell (700-1000 px), PuPPET's drawing showed its place names at
// 2-4 px.  So it fits the width only while its names stay legible, and is
// otherwise shown larger, in a pane that scrolls, with zoom controls: - and
// +, Fit (the whole width, legible or not), ctrl/cmd + wheel (or a pinch)
// about the pointer, and a drag of the background to pan.
//
// Scales are CSS pixels per unit of Graphviz's SVG (a point).

// One pixel a point: place names (11 pt in cpn/drawing.py) show at 11 px,
// edge labels (9 pt) at 9 px.
const LEGIBLE = 1;
const STEP = 1.25;  // a click on - or +
const SMALLEST = 0.1, LARGEST = 8;

export function zoomable(drawing, controls) {
  // scale: null, automatic; "fit", the width whatever it is; else the user's
  const state = { svg: null, natural: 1, scale: null, key: null };
  const units = () => state.svg.viewBox.baseVal;
  const fit = () => drawing.clientWidth / units().width;
  // Fit the width, never below legible nor above Graphviz's own size.
  const automatic = () => Math.min(state.natural, Math.max(fit(), LEGIBLE));

  const current = () => (state.scale === null ? automatic()
    : state.scale === "fit" ? fit() : state.scale);

  function show() {
    if (!state.svg) return;
    const scale = current();
    state.svg.setAttribute("width", units().width * scale);
    state.svg.setAttribute("height", units().height * scale);
    controls.level.textContent = `${Math.round((100 * scale) / state.natural)}%`;
  }

  // Zoom by factor, keeping the point at (x, y) on the screen where it is.
  function zoom(factor, x, y) {
    if (!state.svg) return;
    const box = drawing.getBoundingClientRect();
    const [left, top] = [x - box.left, y - box.top];
    const before = current();
    state.scale = Math.min(LARGEST, Math.max(SMALLEST, before * factor));
    const ratio = state.scale / before;
    const [scrollLeft, scrollTop] = [drawing.scrollLeft, drawing.scrollTop];
    show();
    drawing.scrollLeft = (scrollLeft + left) * ratio - left;
    drawing.scrollTop = (scrollTop + top) * ratio - top;
  }

  const aboutCentre = (factor) => {
    const box = drawing.getBoundingClientRect();
    zoom(factor, box.left + drawing.clientWidth / 2, box.top + drawing.clientHeight / 2);
  };
  controls.bigger.onclick = () => aboutCentre(STEP);
  controls.smaller.onclick = () => aboutCentre(1 / STEP);
  controls.fit.onclick = () => {
    state.scale = "fit";
    show();
  };
  wheeled(drawing, zoom);
  pannable(drawing);
  // A pane resized (the window, the notebook's side panel) changes the width to fit.
  new ResizeObserver(() => { if (typeof state.scale !== "number") show(); }).observe(drawing);

  // A new drawing (or none): of the same view (key), at the scale the user chose.
  return function drawn(svg, key) {
    state.svg = svg;
    controls.all.hidden = !svg;
    if (!svg) return;
    state.natural = svg.width.baseVal.value / units().width || 1;
    if (key !== state.key) state.scale = null;
    state.key = key;
    show();
  };
}

// Ctrl/cmd + wheel (a trackpad's pinch too) zooms about the pointer, a notch
// of the wheel as a click on + or -; a plain wheel scrolls.
function wheeled(drawing, zoom) {
  drawing.addEventListener("wheel", (event) => {
    if (!event.ctrlKey && !event.metaKey) return;
    event.preventDefault();  // the browser's own zoom of the whole page
    zoom(STEP ** (-Math.sign(event.deltaY) * Math.min(Math.abs(event.deltaY) / 100, 1)),
         event.clientX, event.clientY);
  }, { passive: false });
}

// A drag on the drawing's background scrolls it; a click on a node stays a click.
function pannable(drawing) {
  let from = null;
  drawing.addEventListener("pointerdown", (event) => {
    // not on a node (a click), nor on a scroll bar (the pane's own, not the drawing)
    if (event.button !== 0 || event.target.closest("g.node") || !event.target.closest("svg")) {
      return;
    }
    event.preventDefault();  // a drag, not a selection of text
    from = { x: event.clientX + drawing.scrollLeft, y: event.clientY + drawing.scrollTop };
    drawing.setPointerCapture(event.pointerId);
    drawing.classList.add("panning");
  });
  drawing.addEventListener("pointermove", (event) => {
    if (!from) return;
    drawing.scrollLeft = from.x - event.clientX;
    drawing.scrollTop = from.y - event.clientY;
  });
  const stop = () => {
    from = null;
    drawing.classList.remove("panning");
  };
  drawing.addEventListener("pointerup", stop);
  drawing.addEventListener("pointercancel", stop);
}
