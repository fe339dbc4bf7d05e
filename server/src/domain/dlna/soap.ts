/**
 * UPnP control over SOAP 1.1 (UDA 1.0 §3): what a TV's POST to `…/Control` asks, and the answer or fault it
 * gets. Reading never throws: anything malformed becomes a `SoapRequestError` the route turns into a UPnP
 * fault (HTTP 500), never a stack trace.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { escapeXml } from './xml.ts';

/** One element of a read document, namespaces resolved. */
export interface XmlElement {
  /** the name as written, e.g. `u:Browse` */
  name: string;
  /** the name without prefix, e.g. `Browse` */
  local: string;
  /** the namespace URI the prefix resolves to; '' when none */
  namespace: string;
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** the element's own text (entities decoded, CDATA as is), children's text not included */
  text: string;
}

export type XmlReadResult = { ok: true; root: XmlElement } | { ok: false; problem: string };

/** Envelopes are a few hundred bytes; the control route refuses bodies over 64 KiB before this. */
export const MAX_XML_INPUT = 256 * 1024;
const MAX_XML_DEPTH = 32;
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * fast-xml-parser does the tokenising (its validator checks well-formedness first). Entities are
 * NOT expanded by it (`processEntities: false`): the five named ones and character references are
 * decoded below, anything else is refused, and a DOCTYPE is refused before parsing — so no XXE and
 * no "billion laughs", whatever the parser's defaults become.
 */
const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
  maxNestedTags: MAX_XML_DEPTH,
});

class XmlProblem extends Error {}

/** The five named entities and character references; anything else (or a bare &) is a problem. */
function decodeEntities(text: string): string {
  return text.replace(/&([^;&\s]{0,10});?/g, (whole, body: string) => {
    if (!whole.endsWith(';')) throw new XmlProblem('a bare & in text');
    const named = NAMED_ENTITIES[body];
    if (named !== undefined) return named;
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(body);
    if (!numeric) throw new XmlProblem(`unknown entity &${body};`);
    const code = numeric[1] === undefined ? Number(numeric[2]) : parseInt(numeric[1], 16);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      throw new XmlProblem('invalid character reference');
    return String.fromCodePoint(code);
  });
}

/** An entry of fast-xml-parser's ordered output: `{name: children, ':@'?: attributes}` or a text node. */
type OrderedNode = Record<string, unknown>;

function textOf(node: OrderedNode): string | null {
  const text = node['#text'];
  return text === undefined ? null : String(text);
}

function cdataOf(node: OrderedNode): string | null {
  const cdata = node['#cdata'];
  if (!Array.isArray(cdata)) return null;
  return cdata.map((part: OrderedNode) => textOf(part) ?? '').join('');
}

function toElement(node: OrderedNode, parentPrefixes: ReadonlyMap<string, string>): XmlElement {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (name === undefined) throw new XmlProblem('an empty node');
  const rawAttributes = (node[':@'] ?? {}) as Record<string, unknown>;
  const prefixes = new Map(parentPrefixes);
  const attributes = new Map<string, string>();
  for (const [key, raw] of Object.entries(rawAttributes)) {
    if (String(raw).includes('<')) throw new XmlProblem('< in an attribute value');
    const value = decodeEntities(String(raw));
    if (key === 'xmlns') prefixes.set('', value);
    else if (key.startsWith('xmlns:')) prefixes.set(key.slice(6), value);
    attributes.set(key, value);
  }
  const colon = name.indexOf(':');
  const prefix = colon < 0 ? '' : name.slice(0, colon);
  const namespace = prefixes.get(prefix);
  if (namespace === undefined && prefix !== '') throw new XmlProblem(`undeclared prefix ${prefix}`);
  const element: XmlElement = {
    name,
    local: colon < 0 ? name : name.slice(colon + 1),
    namespace: namespace ?? '',
    attributes,
    children: [],
    text: '',
  };
  const content = node[name];
  for (const child of Array.isArray(content) ? (content as OrderedNode[]) : []) {
    const cdata = cdataOf(child);
    const text = textOf(child);
    if (cdata !== null) element.text += cdata;
    else if (text !== null) element.text += decodeEntities(text);
    else element.children.push(toElement(child, prefixes));
  }
  return element;
}

/**
 * Reads one XML document (a SOAP envelope, or any answer read back in tests); never throws.
 * Refused: DOCTYPE and other declarations, anything not well-formed, more than one root, text
 * outside it, unknown entities, more than 32 levels or 256 KiB.
 */
export function readXml(input: string): XmlReadResult {
  if (input.length > MAX_XML_INPUT) {
    return { ok: false, problem: `the document is over ${MAX_XML_INPUT} characters` };
  }
  const body = input.startsWith('\uFEFF') ? input.slice(1) : input;
  // `<!` opens only comments and CDATA in what reelshelf reads: a DOCTYPE (and its entities) never reaches a parser.
  if (/<!(?!--|\[CDATA\[)/.test(body))
    return { ok: false, problem: 'DOCTYPE and declarations are not accepted' };
  try {
    const valid = XMLValidator.validate(body);
    if (valid !== true) return { ok: false, problem: valid.err.msg };
    const nodes = PARSER.parse(body) as OrderedNode[];
    const roots = nodes.filter((node) => textOf(node) === null);
    if (nodes.some((node) => (textOf(node) ?? '').trim() !== '')) {
      return { ok: false, problem: 'text outside the root element' };
    }
    const [root] = roots;
    if (roots.length !== 1 || root === undefined)
      return { ok: false, problem: 'not exactly one root element' };
    return { ok: true, root: toElement(root, new Map([['xml', XML_NS]])) };
  } catch (error) {
    // The parser's own refusals (nesting) and ours: a value, never a throw out of here.
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

export const SOAP_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP_ENCODING = 'http://schemas.xmlsoap.org/soap/encoding/';
const UPNP_CONTROL_NS = 'urn:schemas-upnp-org:control-1-0';

/** UPnP error codes reelshelf answers with (UDA §3.2.2; ContentDirectory:1 §2.7.x). */
export const UpnpError = {
  InvalidAction: 401,
  InvalidArgs: 402,
  ActionFailed: 501,
  NoSuchObject: 701,
  UnsupportedSearchCriteria: 708,
  NoSuchContainer: 710,
  /** ConnectionManager:1 §2.4.4: a ConnectionID that names no connection. */
  InvalidConnectionReference: 706,
  CannotProcess: 720,
} as const;
export type UpnpErrorCode = (typeof UpnpError)[keyof typeof UpnpError];

const DESCRIPTIONS: Record<UpnpErrorCode, string> = {
  401: 'Invalid Action',
  402: 'Invalid Args',
  501: 'Action Failed',
  701: 'No such object',
  708: 'Unsupported or invalid search criteria',
  710: 'No such container',
  706: 'Invalid connection reference',
  720: 'Cannot process the request',
};

/** Faults travel with HTTP 500 (UDA §3.2.2), whatever the code. */
export const SOAP_FAULT_HTTP_STATUS = 500;

export interface SoapRequest {
  /** e.g. `urn:schemas-upnp-org:service:ContentDirectory:1` */
  serviceType: string;
  /** e.g. `Browse` */
  action: string;
  /** argument name → text, in the order sent */
  arguments: ReadonlyMap<string, string>;
}

export interface SoapRequestError {
  code: UpnpErrorCode;
  /** says what was wrong, for logs and the fault's description */
  reason: string;
}

export type SoapReadResult = { ok: true; request: SoapRequest } | { ok: false; error: SoapRequestError };

function invalid(code: UpnpErrorCode, reason: string): SoapReadResult {
  return { ok: false, error: { code, reason } };
}

/**
 * The `SOAPACTION` header: `"urn:…:service:ContentDirectory:1#Browse"` (quotes optional). Null when absent or
 * not of that form.
 */
export function parseSoapActionHeader(
  header: string | undefined,
): { serviceType: string; action: string } | null {
  if (header === undefined) return null;
  const match = /^\s*"?([^"#\s]+)#([A-Za-z_][\w.-]*)"?\s*$/.exec(header);
  return match ? { serviceType: match[1] ?? '', action: match[2] ?? '' } : null;
}

/**
 * An envelope → service, action and arguments. The body decides; a `SOAPACTION` header, when sent, must
 * agree with it (a TV that says one action and sends another gets 401, not a guess).
 */
export function readSoapRequest(body: string, soapActionHeader?: string): SoapReadResult {
  const document = readXml(body);
  if (!document.ok) return invalid(UpnpError.InvalidAction, `the body is not XML: ${document.problem}`);
  const envelope = document.root;
  if (envelope.local !== 'Envelope' || envelope.namespace !== SOAP_ENVELOPE_NS) {
    return invalid(UpnpError.InvalidAction, 'the body is not a SOAP 1.1 Envelope');
  }
  const bodies = envelope.children.filter(
    (child) => child.local === 'Body' && child.namespace === SOAP_ENVELOPE_NS,
  );
  if (bodies.length !== 1) return invalid(UpnpError.InvalidAction, 'the Envelope needs exactly one Body');
  const actions = bodies[0]?.children ?? [];
  const call = actions[0];
  if (actions.length !== 1 || call === undefined) {
    return invalid(UpnpError.InvalidAction, 'the Body needs exactly one action element');
  }
  if (!/^urn:[^\s]+:service:[^\s:]+:\d+$/.test(call.namespace)) {
    return invalid(UpnpError.InvalidAction, `the action ${call.local} is not in a UPnP service namespace`);
  }
  if (soapActionHeader !== undefined) {
    const said = parseSoapActionHeader(soapActionHeader);
    if (said === null) return invalid(UpnpError.InvalidAction, 'the SOAPACTION header is malformed');
    if (said.serviceType !== call.namespace || said.action !== call.local) {
      return invalid(UpnpError.InvalidAction, 'the SOAPACTION header names another action than the body');
    }
  }
  const args = new Map<string, string>();
  for (const argument of call.children) {
    if (argument.children.length > 0)
      return invalid(UpnpError.InvalidArgs, `argument ${argument.local} is not text`);
    if (args.has(argument.local))
      return invalid(UpnpError.InvalidArgs, `argument ${argument.local} is repeated`);
    args.set(argument.local, argument.text);
  }
  return { ok: true, request: { serviceType: call.namespace, action: call.local, arguments: args } };
}

/** The named arguments, all present (extra ones are tolerated: some TVs send more than the SCPD lists). */
export function requireArguments<Name extends string>(
  request: SoapRequest,
  names: readonly Name[],
): { ok: true; values: Record<Name, string> } | { ok: false; error: SoapRequestError } {
  const values = {} as Record<Name, string>;
  for (const name of names) {
    const value = request.arguments.get(name);
    if (value === undefined) {
      return { ok: false, error: { code: UpnpError.InvalidArgs, reason: `argument ${name} is missing` } };
    }
    values[name] = value;
  }
  return { ok: true, values };
}

function envelope(inner: string): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<s:Envelope xmlns:s="${SOAP_ENVELOPE_NS}" s:encodingStyle="${SOAP_ENCODING}"><s:Body>${inner}</s:Body></s:Envelope>`
  );
}

/**
 * `<u:{action}Response>` with the output arguments in order; values are text and escaped here (a DIDL
 * `Result` is thus escaped once, as TVs expect).
 */
export function renderSoapResponse(
  serviceType: string,
  action: string,
  outputs: readonly (readonly [string, string | number])[],
): string {
  const args = outputs.map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`).join('');
  return envelope(`<u:${action}Response xmlns:u="${escapeXml(serviceType)}">${args}</u:${action}Response>`);
}

/** A UPnP fault (sent with `SOAP_FAULT_HTTP_STATUS`). */
export function renderSoapFault(code: UpnpErrorCode, description: string = DESCRIPTIONS[code]): string {
  return envelope(
    '<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>' +
      `<UPnPError xmlns="${UPNP_CONTROL_NS}"><errorCode>${code}</errorCode>` +
      `<errorDescription>${escapeXml(description)}</errorDescription></UPnPError></detail></s:Fault>`,
  );
}
