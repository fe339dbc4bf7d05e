/**
 * A strict, minimal XML reader for what TVs POST: SOAP envelopes of a few elements. No XML parser is among
 * reelshelf's dependencies and this input is tiny and simple, so it is read here rather than adding one.
 *
 * Supported: the XML declaration, comments, processing instructions (skipped), elements, attributes in
 * either quote, the five named entities, numeric character references, CDATA, namespace prefixes.
 * Refused: DOCTYPE (no entity expansion, so no XXE or "billion laughs"), anything not well-formed, more
 * than MAX_DEPTH levels or MAX_INPUT characters. It never throws: problems come back as a value.
 */

export interface XmlElement {
  /** the name as written, e.g. `u:Browse` */
  name: string;
  /** the name without prefix, e.g. `Browse` */
  local: string;
  /** the namespace URI the prefix resolves to; '' when none */
  namespace: string;
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** the element's own text (entities decoded), children's text not included */
  text: string;
}

export type XmlReadResult = { ok: true; root: XmlElement } | { ok: false; problem: string };

export const MAX_INPUT = 256 * 1024;
const MAX_DEPTH = 32;
const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

class XmlSyntaxError extends Error {}

/** Reads one XML document; never throws. */
export function readXml(input: string): XmlReadResult {
  if (input.length > MAX_INPUT) return { ok: false, problem: `the document is over ${MAX_INPUT} characters` };
  try {
    return { ok: true, root: new Reader(input).document() };
  } catch (error) {
    if (error instanceof XmlSyntaxError) return { ok: false, problem: error.message };
    throw error;
  }
}

interface Scope {
  prefixes: ReadonlyMap<string, string>;
}

class Reader {
  private position = 0;

  constructor(private readonly input: string) {}

  document(): XmlElement {
    if (this.input.startsWith('\uFEFF')) this.position = 1;
    this.misc();
    if (!this.input.startsWith('<', this.position) || this.input.startsWith('</', this.position)) {
      this.fail('no root element');
    }
    const root = this.element({ prefixes: new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]) }, 1);
    this.misc();
    if (this.position < this.input.length) this.fail('content after the root element');
    return root;
  }

  /** Whitespace, comments and processing instructions between top-level parts. */
  private misc(): void {
    for (;;) {
      this.skipSpace();
      if (this.input.startsWith('<?', this.position)) this.skipPast('?>');
      else if (this.input.startsWith('<!--', this.position)) this.skipPast('-->');
      else if (this.input.startsWith('<!', this.position))
        this.fail('DOCTYPE and declarations are not accepted');
      else return;
    }
  }

  private element(parent: Scope, depth: number): XmlElement {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    this.expect('<');
    const name = this.name();
    const raw = new Map<string, string>();
    for (;;) {
      const hadSpace = this.skipSpace();
      if (this.input.startsWith('/>', this.position) || this.input.startsWith('>', this.position)) break;
      if (!hadSpace) this.fail(`expected whitespace in <${name}>`);
      const attribute = this.name();
      this.skipSpace();
      this.expect('=');
      this.skipSpace();
      if (raw.has(attribute)) this.fail(`attribute ${attribute} repeated in <${name}>`);
      raw.set(attribute, this.quoted());
    }
    const prefixes = new Map(parent.prefixes);
    const attributes = new Map<string, string>();
    for (const [key, value] of raw) {
      if (key === 'xmlns') prefixes.set('', value);
      else if (key.startsWith('xmlns:')) prefixes.set(key.slice(6), value);
      attributes.set(key, value);
    }
    const scope = { prefixes };
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    const namespace = prefixes.get(prefix);
    if (namespace === undefined && prefix !== '') this.fail(`undeclared prefix ${prefix}`);
    const result: XmlElement = {
      name,
      local: colon < 0 ? name : name.slice(colon + 1),
      namespace: namespace ?? '',
      attributes,
      children: [],
      text: '',
    };
    if (this.input.startsWith('/>', this.position)) {
      this.position += 2;
      return result;
    }
    this.expect('>');
    let text = '';
    for (;;) {
      if (this.position >= this.input.length) this.fail(`<${name}> is not closed`);
      if (this.input.startsWith('</', this.position)) {
        this.position += 2;
        const closing = this.name();
        if (closing !== name) this.fail(`</${closing}> closes <${name}>`);
        this.skipSpace();
        this.expect('>');
        result.text = text;
        return result;
      }
      if (this.input.startsWith('<![CDATA[', this.position)) {
        const end = this.input.indexOf(']]>', this.position + 9);
        if (end < 0) this.fail('unterminated CDATA');
        text += this.input.slice(this.position + 9, end);
        this.position = end + 3;
      } else if (this.input.startsWith('<!--', this.position)) this.skipPast('-->');
      else if (this.input.startsWith('<?', this.position)) this.skipPast('?>');
      else if (this.input.startsWith('<!', this.position)) this.fail('declarations are not accepted');
      else if (this.input.startsWith('<', this.position))
        result.children.push(this.element(scope, depth + 1));
      else {
        const next = this.input.indexOf('<', this.position);
        const end = next < 0 ? this.input.length : next;
        text += this.decode(this.input.slice(this.position, end));
        this.position = end;
      }
    }
  }

  private name(): string {
    const match = NAME.exec(this.input.slice(this.position, this.position + 200));
    if (!match) this.fail('expected a name');
    this.position += match[0].length;
    return match[0];
  }

  private quoted(): string {
    const quote = this.input[this.position];
    if (quote !== '"' && quote !== "'") this.fail('expected a quoted attribute value');
    const end = this.input.indexOf(quote, this.position + 1);
    if (end < 0) this.fail('unterminated attribute value');
    const value = this.input.slice(this.position + 1, end);
    if (value.includes('<')) this.fail('< in an attribute value');
    this.position = end + 1;
    return this.decode(value);
  }

  private decode(text: string): string {
    return text.replace(/&([^;&\s]{0,10});?/g, (whole, body: string) => {
      if (!whole.endsWith(';')) this.fail('a bare & in text');
      const named = NAMED[body];
      if (named !== undefined) return named;
      const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(body);
      if (!numeric) this.fail(`unknown entity &${body};`);
      const code = numeric[1] === undefined ? Number(numeric[2]) : parseInt(numeric[1], 16);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        this.fail('invalid character reference');
      return String.fromCodePoint(code);
    });
  }

  private skipSpace(): boolean {
    const start = this.position;
    while (/[ \t\r\n]/.test(this.input[this.position] ?? '')) this.position += 1;
    return this.position > start;
  }

  private skipPast(terminator: string): void {
    const end = this.input.indexOf(terminator, this.position + 2);
    if (end < 0) this.fail(`unterminated ${terminator}`);
    this.position = end + terminator.length;
  }

  private expect(literal: string): void {
    if (!this.input.startsWith(literal, this.position)) this.fail(`expected ${literal} at ${this.position}`);
    this.position += literal.length;
  }

  private fail(message: string): never {
    throw new XmlSyntaxError(message);
  }
}
