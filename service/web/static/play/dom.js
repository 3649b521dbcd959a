// Building the page's HTML elements, for the views that draw lists and tables (profiles,
// tournaments): always through textContent, so a handle or a name is never read as HTML.

/** A `tag` element with `text` and `className`, either left out when empty. */
export function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A link on the page: `href` is one of app.js's links (a profile, a game, a board). */
export function link(text, href) {
  const a = el("a", text);
  a.href = href;
  return a;
}
