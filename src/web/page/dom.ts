// The two DOM helpers the pages share. Text always goes in as text nodes, never as HTML, so
// nothing from a robots.txt or an audit row can inject markup into the page.

/** The element with this id; throws when the page's HTML lacks it (a build mistake, not user input). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`page is missing #${id}`);
  return found as T;
}

/** Create an element with attributes and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}
