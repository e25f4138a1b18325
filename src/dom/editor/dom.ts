/**
 * The one way the editor builds DOM: `el(tag, attributes, ...children)`, where text children
 * become Text nodes. Data never goes through innerHTML, so labels, titles and speaker names
 * typed by users are always shown as text.
 *
 * @module
 */

/** Attributes and properties `el` may set. `text` sets textContent; `on*` functions become listeners. */
export type ElementProps = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** A child of `el`: a node, text (escaped by construction), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/**
 * Creates an element. `class`, `id`, `title`, `data-*` and `aria-*` are attributes; `value`,
 * `checked`, `disabled` and `text` are properties; `onclick` etc. are listeners.
 *
 * @example
 * el('button', { class: 'primary', onclick: () => save() }, 'Save')
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') node.addEventListener(key.replace(/^on/, ''), value);
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'value' || key === 'checked' || key === 'disabled')
      (node as unknown as Record<string, unknown>)[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A distinct colour per camera index (also used for the camera tiles' outline). */
export function cameraColour(index: number): string {
  const palette = ['#e4572e', '#17bebb', '#ffc914', '#76b041', '#8e6bd8', '#2e86de', '#f28ab2', '#a0522d', '#7f8c8d'];
  return palette[index % palette.length]!;
}
