/**
 * XML responses as trees, for tests that look at structure. libxml2 (xmllint-wasm) parses the text,
 * which proves it well-formed, and writes it in canonical form (C14N: no declaration, attributes
 * quoted alike, every element with an end tag, only the five entities); that regular form is then
 * read into elements here. Namespace prefixes are kept in names (`oai_dc:dc`), as the text has them.
 */
import { validateXML } from 'xmllint-wasm';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The text directly inside it, entities resolved. */
  text: string;
}

const decode = (text: string) =>
  text.replace(/&(lt|gt|amp|quot|apos|#x[0-9A-Fa-f]+|#\d+);/g, (_m, entity: string) => {
    if (entity === 'lt') return '<';
    if (entity === 'gt') return '>';
    if (entity === 'amp') return '&';
    if (entity === 'quot') return '"';
    if (entity === 'apos') return "'";
    return String.fromCodePoint(
      entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1)),
    );
  });

/** Reads canonical XML; throws on anything else. */
function readCanonical(text: string): XmlElement {
  const tag = /<(\/?)([^\s/>]+)((?:\s+[^\s=]+="[^"]*")*)\s*>|([^<]+)/gy;
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  for (const match of text.matchAll(tag)) {
    const [, closing, name, attributeText, textNode] = match;
    const current = stack.at(-1)!;
    if (textNode !== undefined) {
      current.text += decode(textNode);
    } else if (closing) {
      if (current.name !== name) throw new Error(`</${name}> closes <${current.name}>`);
      stack.pop();
    } else {
      const attributes = Object.fromEntries(
        [...(attributeText ?? '').matchAll(/([^\s=]+)="([^"]*)"/g)].map(([, key, value]) => [
          key!,
          decode(value!),
        ]),
      );
      const element: XmlElement = { name: name!, attributes, children: [], text: '' };
      current.children.push(element);
      stack.push(element);
    }
  }
  if (stack.length !== 1 || root.children.length !== 1) throw new Error('not one root element');
  return root.children[0]!;
}

/** The document element of `xml`; rejects text libxml2 finds not well-formed. */
export async function parseXml(xml: string): Promise<XmlElement> {
  const result = await validateXML({
    xml: { fileName: 'response.xml', contents: xml },
    normalization: 'c14n',
  });
  if (!result.valid || result.errors.length > 0) {
    throw new Error(`not well-formed XML: ${result.errors.map((error) => error.message).join('; ')}`);
  }
  return readCanonical(result.normalized.trim());
}

/** The children of `element` named `name`. */
export const childrenNamed = (element: XmlElement, name: string) =>
  element.children.filter((child) => child.name === name);

/** The one child named `name`; throws when there is none or several. */
export function child(element: XmlElement, name: string): XmlElement {
  const found = childrenNamed(element, name);
  if (found.length !== 1) throw new Error(`<${element.name}> has ${found.length} <${name}>, not one`);
  return found[0]!;
}

/** The element at a path of child names, each found once. */
export const at = (element: XmlElement, ...path: string[]) =>
  path.reduce((current, name) => child(current, name), element);
