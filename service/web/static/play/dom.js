// Building the page's HTML elements, for the views that draw lists and tables (profiles,
// tournaments, the final table's analysis and scores): always through textContent, so a
// handle or a name is never read as HTML.

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

const TABLE_ROLES = { TABLE: "table", THEAD: "rowgroup", TBODY: "rowgroup", TFOOT: "rowgroup", TR: "row", TD: "cell" };

/**
 * The roles of a table's parts set on them, so it stays a table for screen readers however
 * it is laid out. On a phone a reflowed table (`table.reflow` in style.css) shows each row
 * as a block of label: value pairs with `display: block`, which some browsers take to mean it
 * is no longer a table; with the roles it is still read as rows and cells under their
 * column headers.
 */
export function keepTableRoles(root) {
  for (const node of [root, ...root.querySelectorAll("thead, tbody, tfoot, tr, th, td")]) {
    if (node.tagName === "TH") node.setAttribute("role", node.scope === "row" ? "rowheader" : "columnheader");
    else if (TABLE_ROLES[node.tagName]) node.setAttribute("role", TABLE_ROLES[node.tagName]);
  }
}

/** A data cell that names its column (`data-label`): a reflowed table shows the label beside
 * the value on a phone, where its header row is out of sight. */
export function labelledCell(label, text, className = "") {
  const td = el("td", text, className);
  td.dataset.label = label;
  return td;
}
