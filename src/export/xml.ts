/**
 * The little XML the exports need: escaping and an element builder that indents. Pure.
 *
 * @module
 */

/**
 * What XML 1.0 forbids even escaped (outside its `Char` production): C0 controls other than tab,
 * LF and CR, U+FFFE/U+FFFF, and lone surrogates (which have no UTF-8 encoding).
 */
const NOT_XML_CHAR =
  // eslint-disable-next-line no-control-regex -- control characters are what it matches
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Escapes text or an attribute value (`&`, `<`, `>`, `"`, `'`) and drops the characters XML 1.0
 * forbids, so the document stays well-formed whatever text a job holds.
 */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML_CHAR, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** An XML element: name, attributes (undefined ones left out), children or text. */
export interface XmlNode {
  name: string;
  attrs?: Record<string, string | number | undefined>;
  children?: Array<XmlNode | null>;
  text?: string | number;
}

/** Shorthand for an {@link XmlNode}; `children` may be a text value. */
export function el(
  name: string,
  attrs: XmlNode['attrs'] = {},
  children: Array<XmlNode | null> | string | number = [],
): XmlNode {
  return Array.isArray(children) ? { name, attrs, children } : { name, attrs, text: children };
}

function render(node: XmlNode, depth: number, out: string[]): void {
  const indent = '    '.repeat(depth);
  const attrs = Object.entries(node.attrs ?? {})
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
  const children = (node.children ?? []).filter((c): c is XmlNode => c !== null);
  if (node.text !== undefined)
    out.push(`${indent}<${node.name}${attrs}>${escapeXml(String(node.text))}</${node.name}>`);
  else if (children.length === 0) out.push(`${indent}<${node.name}${attrs}/>`);
  else {
    out.push(`${indent}<${node.name}${attrs}>`);
    for (const c of children) render(c, depth + 1, out);
    out.push(`${indent}</${node.name}>`);
  }
}

/** A whole document: the XML declaration, a DOCTYPE line, the root element, a final newline. */
export function xmlDocument(doctype: string, root: XmlNode): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<!DOCTYPE ${doctype}>`];
  render(root, 0, out);
  return `${out.join('\n')}\n`;
}
