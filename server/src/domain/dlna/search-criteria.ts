/**
 * ContentDirectory:1 `SearchCriteria` (UPnP AV CDS:1 §2.5.5): what TVs send instead of browsing —
 * `upnp:class derivedfrom "object.item.videoItem" and dc:title contains "heat"`. A small strict
 * parser (never a throw, bounded on hostile input) and a matcher. Supported: `*`; `upnp:class` with
 * `=`, `!=`, `derivedfrom`; `dc:title` with `=`, `!=`, `contains`, `doesNotContain`; `exists` on
 * `upnp:class`, `dc:title` and `@refID` (Windows Media Player asks `@refID exists false`); `and`
 * binding tighter than `or`; parentheses; quoted strings with the spec's escapes `\"` and `\\`.
 * Anything else is unsupported (the service answers 708).
 */

export type SearchProperty = 'upnp:class' | 'dc:title' | '@refID';
export type CompareOperator = '=' | '!=' | 'contains' | 'doesNotContain' | 'derivedfrom';

export type SearchCriteria =
  | { kind: 'all' }
  | { kind: 'and' | 'or'; left: SearchCriteria; right: SearchCriteria }
  | { kind: 'compare'; property: 'upnp:class' | 'dc:title'; operator: CompareOperator; value: string }
  | { kind: 'exists'; property: SearchProperty; exists: boolean };

export type ParsedSearchCriteria = { ok: true; criteria: SearchCriteria } | { ok: false; reason: string };

/** What a search result is matched on. */
export interface SearchSubject {
  upnpClass: string;
  title: string;
  /** The object is a second placement of another (it carries a `refID`). */
  isReference: boolean;
}

/** Longer criteria are refused before being read (a TV sends a few hundred characters at most). */
export const MAX_CRITERIA_LENGTH = 4096;
/** Nesting deeper than this is refused (the parser recurses once per level). */
export const MAX_CRITERIA_DEPTH = 32;

const OPERATORS_OF: Record<SearchProperty, readonly CompareOperator[]> = {
  'upnp:class': ['=', '!=', 'derivedfrom'],
  'dc:title': ['=', '!=', 'contains', 'doesNotContain'],
  '@refID': [],
};

type Token =
  | { kind: 'open' | 'close' }
  | { kind: 'word'; text: string }
  | { kind: 'operator'; text: string }
  | { kind: 'string'; text: string };

type Tokens = { ok: true; tokens: Token[] } | { ok: false; reason: string };

const WHITESPACE = /[ \t\r\n]/;
const WORD = /[A-Za-z0-9:@_.-]/;
const OPERATOR_CHAR = /[=!<>]/;

function tokenize(text: string): Tokens {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const c = text.charAt(at);
    if (WHITESPACE.test(c)) {
      at++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close' });
      at++;
    } else if (c === '"') {
      let value = '';
      at++;
      for (;;) {
        if (at >= text.length) return { ok: false, reason: 'a quoted string is not closed' };
        const d = text.charAt(at);
        if (d === '"') break;
        if (d === '\\') {
          const next = text.charAt(at + 1);
          if (next !== '"' && next !== '\\') {
            return { ok: false, reason: `the escape \\${next} is not \\" or \\\\` };
          }
          value += next;
          at += 2;
        } else {
          value += d;
          at++;
        }
      }
      at++;
      tokens.push({ kind: 'string', text: value });
    } else if (OPERATOR_CHAR.test(c)) {
      let end = at;
      while (end < text.length && OPERATOR_CHAR.test(text.charAt(end))) end++;
      tokens.push({ kind: 'operator', text: text.slice(at, end) });
      at = end;
    } else if (WORD.test(c)) {
      let end = at;
      while (end < text.length && WORD.test(text.charAt(end))) end++;
      tokens.push({ kind: 'word', text: text.slice(at, end) });
      at = end;
    } else {
      return { ok: false, reason: `unexpected character ${JSON.stringify(c)} at ${at}` };
    }
  }
  return { ok: true, tokens };
}

class Failure {
  constructor(readonly reason: string) {}
}

/** Recursive descent over the tokens: or := and ('or' and)*; and := primary ('and' primary)*. */
class Parser {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  parse(): SearchCriteria {
    const criteria = this.or(0);
    const extra = this.tokens[this.at];
    if (extra !== undefined) throw new Failure(`unexpected ${describe(extra)} after the criteria`);
    return criteria;
  }

  private keyword(word: string): boolean {
    const token = this.tokens[this.at];
    if (token?.kind === 'word' && token.text.toLowerCase() === word) {
      this.at++;
      return true;
    }
    return false;
  }

  private or(depth: number): SearchCriteria {
    let left = this.and(depth);
    while (this.keyword('or')) left = { kind: 'or', left, right: this.and(depth) };
    return left;
  }

  private and(depth: number): SearchCriteria {
    let left = this.primary(depth);
    while (this.keyword('and')) left = { kind: 'and', left, right: this.primary(depth) };
    return left;
  }

  private primary(depth: number): SearchCriteria {
    const token = this.tokens[this.at];
    if (token === undefined) throw new Failure('the criteria end too early');
    if (token.kind === 'open') {
      if (depth >= MAX_CRITERIA_DEPTH) throw new Failure(`nested deeper than ${MAX_CRITERIA_DEPTH}`);
      this.at++;
      const inner = this.or(depth + 1);
      if (this.tokens[this.at]?.kind !== 'close') throw new Failure('a parenthesis is not closed');
      this.at++;
      return inner;
    }
    return this.relation();
  }

  private relation(): SearchCriteria {
    const property = this.tokens[this.at];
    if (property?.kind !== 'word') {
      throw new Failure(`expected a property, found ${describe(property)}`);
    }
    this.at++;
    const name = property.text;
    if (name !== 'upnp:class' && name !== 'dc:title' && name !== '@refID') {
      throw new Failure(`searching by ${name} is not supported (dc:title, upnp:class)`);
    }
    const operator = this.tokens[this.at];
    this.at++;
    if (operator?.kind === 'word' && operator.text.toLowerCase() === 'exists') {
      const value = this.tokens[this.at];
      this.at++;
      const text = value?.kind === 'word' || value?.kind === 'string' ? value.text.toLowerCase() : '';
      if (text !== 'true' && text !== 'false') throw new Failure('exists takes true or false');
      return { kind: 'exists', property: name, exists: text === 'true' };
    }
    const op = operatorOf(operator);
    if (op === null) throw new Failure(`expected an operator after ${name}, found ${describe(operator)}`);
    if (name === '@refID' || !OPERATORS_OF[name].includes(op)) {
      throw new Failure(`${name} ${op} is not supported`);
    }
    const value = this.tokens[this.at];
    if (value?.kind !== 'string') throw new Failure(`expected a quoted value, found ${describe(value)}`);
    this.at++;
    return { kind: 'compare', property: name, operator: op, value: value.text };
  }
}

function operatorOf(token: Token | undefined): CompareOperator | null {
  if (token?.kind === 'operator') {
    if (token.text === '=' || token.text === '!=') return token.text;
    // <, <=, >, >= are valid CDS but not supported here.
    return null;
  }
  if (token?.kind === 'word') {
    const word = token.text.toLowerCase();
    if (word === 'contains') return 'contains';
    if (word === 'doesnotcontain') return 'doesNotContain';
    if (word === 'derivedfrom') return 'derivedfrom';
  }
  return null;
}

function describe(token: Token | undefined): string {
  if (token === undefined) return 'the end';
  if (!('text' in token)) return token.kind === 'open' ? '"("' : '")"';
  return JSON.stringify(token.text.slice(0, 40));
}

/** `SearchCriteria` → a tree to match, or why it is not supported (the service's 708). */
export function parseSearchCriteria(text: string): ParsedSearchCriteria {
  if (text.length > MAX_CRITERIA_LENGTH) {
    return { ok: false, reason: `the criteria are longer than ${MAX_CRITERIA_LENGTH} characters` };
  }
  const trimmed = text.trim();
  // `*` is "everything" (§2.5.5); some control points send nothing for the same.
  if (trimmed === '*' || trimmed === '') return { ok: true, criteria: { kind: 'all' } };
  const tokens = tokenize(trimmed);
  if (!tokens.ok) return tokens;
  try {
    return { ok: true, criteria: new Parser(tokens.tokens).parse() };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** Case-insensitive, as control points expect of a title search (minidlna's SQL LIKE is too). */
function fold(text: string): string {
  return text.toLowerCase();
}

/** Whether `subject` satisfies the criteria. */
export function matchesCriteria(criteria: SearchCriteria, subject: SearchSubject): boolean {
  switch (criteria.kind) {
    case 'all':
      return true;
    case 'and':
      return matchesCriteria(criteria.left, subject) && matchesCriteria(criteria.right, subject);
    case 'or':
      return matchesCriteria(criteria.left, subject) || matchesCriteria(criteria.right, subject);
    case 'exists':
      // Every object has a class and a title; only second placements have a refID.
      return (criteria.property === '@refID' ? subject.isReference : true) === criteria.exists;
    case 'compare': {
      const actual = fold(criteria.property === 'upnp:class' ? subject.upnpClass : subject.title);
      const value = fold(criteria.value);
      switch (criteria.operator) {
        case '=':
          return actual === value;
        case '!=':
          return actual !== value;
        case 'contains':
          return actual.includes(value);
        case 'doesNotContain':
          return !actual.includes(value);
        case 'derivedfrom':
          return actual === value || actual.startsWith(`${value}.`);
      }
    }
  }
}
