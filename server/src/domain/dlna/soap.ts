/**
 * UPnP control over SOAP 1.1 (UDA 1.0 §3): what a TV's POST to `…/Control` asks, and the answer or fault it
 * gets. Reading never throws: anything malformed becomes a `SoapRequestError` the route turns into a UPnP
 * fault (HTTP 500), never a stack trace.
 */
import { escapeXml } from './xml.ts';
import { readXml } from './xml-reader.ts';

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
