/**
 * A control POST, from its body to the answer (UDA 1.0 §3.2): the envelope is read (soap.ts), the
 * action must be one the service's SCPD lists (else 401) with every input argument present (else
 * 402), then the service's handler answers. Whatever goes wrong is a SOAP fault with HTTP 500, never
 * a stack trace; a handler that throws is a 501 and the error goes back to the route to be logged.
 * Every request is noted among the recent TVs.
 */
import { DLNA_SERVICES, serviceType, type DlnaServiceName } from '../../domain/dlna/paths.ts';
import { inputArguments, scpdAction } from '../../domain/dlna/scpd.ts';
import {
  readSoapRequest,
  renderSoapFault,
  renderSoapResponse,
  requireArguments,
  SOAP_FAULT_HTTP_STATUS,
  UpnpError,
  type UpnpErrorCode,
} from '../../domain/dlna/soap.ts';
import type { DlnaClient, DlnaServiceHandler } from './dlna-ports.ts';
import type { RecentTvs } from './recent-tvs.ts';

export interface DlnaControlAnswer {
  status: number;
  /** A SOAP envelope: the response or a fault. */
  body: string;
  /** A handler's failure, for the route's log (the TV got a 501 fault). */
  error?: unknown;
}

export function isDlnaServiceName(name: string): name is DlnaServiceName {
  return (DLNA_SERVICES as readonly string[]).includes(name);
}

export function soapFault(code: UpnpErrorCode, description?: string): DlnaControlAnswer {
  return { status: SOAP_FAULT_HTTP_STATUS, body: renderSoapFault(code, description) };
}

export class DlnaControlService {
  constructor(
    private readonly handlers: Readonly<Record<DlnaServiceName, DlnaServiceHandler>>,
    private readonly recent: RecentTvs,
  ) {}

  /**
   * @param body the request body as text (the route reads any type as text, at most 64 KiB)
   * @param soapAction the SOAPACTION header, when sent
   */
  async control(
    service: DlnaServiceName,
    body: string,
    soapAction: string | undefined,
    client: DlnaClient,
  ): Promise<DlnaControlAnswer> {
    const read = readSoapRequest(body, soapAction);
    if (!read.ok) {
      this.recent.seen(client, `${service}: malformed request`);
      return soapFault(read.error.code, read.error.reason);
    }
    const { request } = read;
    this.recent.seen(client, `${service}#${request.action}`);
    if (request.serviceType !== serviceType(service)) {
      return soapFault(UpnpError.InvalidAction, `this is the control URL of ${serviceType(service)}`);
    }
    const action = scpdAction(service, request.action);
    if (action === null)
      return soapFault(UpnpError.InvalidAction, `${service} has no action ${request.action}`);
    const args = requireArguments(request, inputArguments(action));
    if (!args.ok) return soapFault(args.error.code, args.error.reason);
    try {
      const outcome = await this.handlers[service].handle(
        request.action,
        Object.fromEntries(request.arguments),
        client,
      );
      if (!outcome.ok) return soapFault(outcome.code, outcome.description);
      return { status: 200, body: renderSoapResponse(request.serviceType, request.action, outcome.values) };
    } catch (error) {
      return { ...soapFault(UpnpError.ActionFailed), error };
    }
  }
}
