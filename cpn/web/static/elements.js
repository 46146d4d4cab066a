// What every part of the page makes alike: an element holding text (put in
// as text, never as markup), and a time as text.

// A time in full: 1234566 and 1234570.5 are not both 1.23457e+6.
export function format(time) {
  return String(time);
}

export function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}
