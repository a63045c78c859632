/**
 * A tiny XML reader for the tests (no new dependency): checks well-formedness (one root,
 * tags nest and close, attributes quoted, only the five predefined entities or character
 * references, no stray `<` or `&`) and returns the element tree.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = '[A-Za-z_][\\w.-]*';
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function decode(raw: string, where: string): string {
  if (raw.includes('<')) throw new Error(`raw "<" in ${where}`);
  if (raw.replace(ENTITY, '').includes('&')) throw new Error(`bad entity in ${where}: ${raw}`);
  return raw
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');
}

export function parseXml(xml: string): XmlElement {
  let rest = xml.replace(/^\uFEFF?<\?xml[^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const tag = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"]*"|'[^']*'))*)\\s*(/?)>`);
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const text = lt === -1 ? rest : rest.slice(0, lt);
    const top = stack[stack.length - 1]!;
    if (text.length) {
      if (top === root && text.trim()) throw new Error(`text outside the root: ${text.trim()}`);
      top.text += decode(text, `text of <${top.name}>`);
    }
    if (lt === -1) break;
    rest = rest.slice(lt);
    const m = tag.exec(rest);
    if (!m) throw new Error(`malformed tag near: ${rest.slice(0, 60)}`);
    const [whole, closing, name, attrText, selfClosing] = m as unknown as [string, string, string, string, string];
    rest = rest.slice(whole.length);
    if (closing) {
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name}>`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText.matchAll(new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g'))) {
      if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]} on <${name}>`);
      attrs[a[1]!] = decode(a[2] ?? a[3] ?? '', `attribute ${a[1]} of <${name}>`);
    }
    const el: XmlElement = { name, attrs, children: [], text: '' };
    if (top === root && root.children.length > 0) throw new Error('more than one root element');
    top.children.push(el);
    if (!selfClosing) stack.push(el);
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1) throw new Error('no root element');
  return root.children[0]!;
}

/** Every element named `name` under `el`, depth first. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  return [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => findAll(c, name))];
}
