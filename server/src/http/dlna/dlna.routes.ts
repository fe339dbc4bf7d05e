/**
 * The DLNA MediaServer on the main port (docs/dlna.md): the device description, SCPDs and icons, the
 * SOAP control URLs and the GENA event URLs, all under /dlna. DLNA has no sign-in, so these routes
 * are public (http/route-access.ts) and answer LAN addresses only (domain/dlna/lan-address.ts); with
 * REELSHELF_DLNA off they do not exist (404, as any unknown route). Thin: the services decide.
 * Also GET /api/dlna, the admins' view of it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTRACT_VERSION, type DlnaStatusView } from '@reelshelf/contract';
import { DLNA_ICON_SIZES, DLNA_ICON_TYPES, renderDeviceDescription } from '../../domain/dlna/description.ts';
import { GENA_TIMEOUT_SECONDS, readGenaRequest } from '../../domain/dlna/gena.ts';
import { isLanAddress } from '../../domain/dlna/lan-address.ts';
import { DLNA_DESCRIPTION_PATH, DLNA_PREFIX, DLNA_SERVICES, dlnaPaths } from '../../domain/dlna/paths.ts';
import { renderScpd } from '../../domain/dlna/scpd.ts';
import { UpnpError } from '../../domain/dlna/soap.ts';
import { AppError } from '../../errors.ts';
import {
  isDlnaServiceName,
  soapFault,
  type DlnaControlAnswer,
} from '../../services/dlna/dlna-control.service.ts';
import type { DlnaIdentity } from '../../services/dlna/dlna-identity.ts';
import type { DlnaClient } from '../../services/dlna/dlna-ports.ts';
import type { DlnaServices, DlnaStatus } from '../../services/dlna/dlna-services.ts';

/** A SOAP envelope is a few hundred bytes; a Browse with a long filter a few KiB. */
export const DLNA_CONTROL_BODY_LIMIT = 64 * 1024;

const XML_TYPE = 'text/xml; charset="utf-8"';
/** UDA 1.0's SERVER header form: OS/version UPnP/1.0 product/version. */
const SERVER_HEADER = `Node.js/${process.versions.node} UPnP/1.0 DLNADOC/1.50 reelshelf/${CONTRACT_VERSION}`;
/** The routes of dlnaPaths.control(…) and dlnaPaths.events(…) (the control route's errors are SOAP faults). */
const CONTROL_ROUTE = `${DLNA_PREFIX}/control/:service`;
const EVENTS_ROUTE = `${DLNA_PREFIX}/events/:service`;
/** A Host header as a URL authority: a name or IPv4 with a port, or a bracketed IPv6 with one. */
const HOST_AUTHORITY = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The TV as its request shows it; URLs in answers go to the address it reached us on. */
export function dlnaClientOf(request: FastifyRequest): DlnaClient {
  const header = (name: string): string | null => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : null;
  };
  const host = header('host');
  const local = request.socket.localAddress ?? '127.0.0.1';
  const authority =
    host !== null && HOST_AUTHORITY.test(host)
      ? host
      : `${local.includes(':') ? `[${local}]` : local}:${request.socket.localPort ?? 80}`;
  return {
    address: request.ip,
    userAgent: header('user-agent') ?? '',
    avClientInfo: header('x-av-client-info'),
    baseUrl: `http://${authority}`,
  };
}

function sendXml(reply: FastifyReply, status: number, xml: string): FastifyReply {
  return reply.code(status).header('content-type', XML_TYPE).header('server', SERVER_HEADER).send(xml);
}

function sendControl(request: FastifyRequest, reply: FastifyReply, answer: DlnaControlAnswer): FastifyReply {
  if (answer.error !== undefined) request.log.error({ err: answer.error }, 'DLNA action failed');
  // UDA 1.0 §3.2.2: a control response carries EXT (empty).
  return sendXml(reply.header('ext', ''), answer.status, answer.body);
}

/**
 * Who reaches /dlna at all: off, nothing under it exists (the 404 of any unknown route); on, only
 * the LAN is answered (DLNA has no sign-in). The media routes under /dlna/media take the same hook.
 */
/**
 * DLNA answers TVs on the local network, and a TV talks to it directly: the peer is the socket's own
 * address (never a forwarded one), and a request a proxy forwarded (`Forwarded` / `X-Forwarded-For`)
 * is refused — behind a reverse proxy on the same box every internet client would otherwise arrive
 * from loopback. One rule for the description/control routes and the media routes.
 * @throws AppError 403 forbidden
 */
export function requireDirectLanPeer(request: FastifyRequest): void {
  const forwarded =
    request.headers.forwarded !== undefined || request.headers['x-forwarded-for'] !== undefined;
  if (forwarded || !isLanAddress(request.socket.remoteAddress ?? '')) {
    throw new AppError('forbidden', {
      message: 'DLNA answers devices on the local network only, not through a proxy.',
      hint: 'Use a device on the same network, or the web app or a Jellyfin app from elsewhere.',
    });
  }
}

export function dlnaAccessHook(identity: Pick<DlnaIdentity, 'enabled'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> => {
    // Returning the reply ends the request here (Fastify's async hooks).
    if (!identity.enabled) {
      reply.callNotFound();
      return reply;
    }
    requireDirectLanPeer(request);
  };
}

export function registerDlnaRoutes(app: FastifyInstance, dlna: DlnaServices): void {
  app.addHttpMethod('SUBSCRIBE');
  app.addHttpMethod('UNSUBSCRIBE');
  registerDlnaAdminRoutes(app, dlna);
  app.register(async (scope) => {
    scope.addHook('onRequest', dlnaAccessHook(dlna.identity));
    // TVs post SOAP as text/xml (some say application/xml, some send no type): every body is read as
    // text here, at most 64 KiB, and the control route judges the envelope.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: DLNA_CONTROL_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    // A control request that fails before its handler (too large, unreadable) is a SOAP fault too.
    scope.setErrorHandler((err, request, reply) => {
      if (err instanceof AppError || request.routeOptions.url !== CONTROL_ROUTE) throw err;
      const tooLarge = (err as { statusCode?: number }).statusCode === 413;
      if (!tooLarge) request.log.warn({ err }, 'DLNA control request could not be read');
      return sendControl(
        request,
        reply,
        soapFault(
          UpnpError.InvalidAction,
          tooLarge ? `the request is over ${DLNA_CONTROL_BODY_LIMIT} bytes` : 'the request could not be read',
        ),
      );
    });

    // TVs parse XML with small stacks and some dislike gzip: DLNA answers are never compressed.
    const plain = { compress: false } as const;
    scope.get(DLNA_DESCRIPTION_PATH, plain, async (_request, reply) =>
      sendXml(
        reply,
        200,
        renderDeviceDescription({
          friendlyName: dlna.identity.friendlyName,
          udn: dlna.identity.udn,
          modelNumber: dlna.modelNumber,
        }),
      ),
    );
    for (const service of DLNA_SERVICES) {
      scope.get(dlnaPaths.scpd(service), plain, async (_request, reply) =>
        sendXml(reply, 200, renderScpd(service)),
      );
    }
    for (const size of DLNA_ICON_SIZES) {
      for (const type of DLNA_ICON_TYPES) {
        scope.get(dlnaPaths.icon(size, type), plain, async (_request, reply) => {
          const icon = await dlna.icons.get(size, type);
          return reply
            .header('content-type', icon.contentType)
            .header('cache-control', 'public, max-age=86400')
            .send(icon.bytes);
        });
      }
    }

    scope.post<{ Params: { service: string } }>(CONTROL_ROUTE, plain, async (request, reply) => {
      const service = request.params.service;
      if (!isDlnaServiceName(service)) {
        reply.callNotFound();
        return reply;
      }
      // UDA asks for text/xml; the envelope itself is judged, whatever type a TV put on it.
      const body = typeof request.body === 'string' ? request.body : '';
      const soapAction = request.headers.soapaction;
      const answer = await dlna.control.control(
        service,
        body,
        typeof soapAction === 'string' ? soapAction : undefined,
        dlnaClientOf(request),
      );
      return sendControl(request, reply, answer);
    });

    // GENA (UDA 1.0 §4.1): subscriptions are answered; events are not sent (docs/dlna.md).
    const events = async (
      request: FastifyRequest<{ Params: { service: string } }>,
      reply: FastifyReply,
      method: 'SUBSCRIBE' | 'UNSUBSCRIBE',
    ): Promise<FastifyReply> => {
      const service = request.params.service;
      if (!isDlnaServiceName(service)) {
        reply.callNotFound();
        return reply;
      }
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      const asked = readGenaRequest(method, {
        sid: header('sid'),
        nt: header('nt'),
        callback: header('callback'),
      });
      reply.header('server', SERVER_HEADER).header('content-length', '0');
      if (asked.kind === 'invalid') return reply.code(asked.status).send();
      if (asked.kind === 'unsubscribe') {
        return reply.code(dlna.subscriptions.unsubscribe(service, asked.sid) ? 200 : 412).send();
      }
      const subscribed =
        asked.kind === 'renew'
          ? dlna.subscriptions.renew(service, asked.sid)
          : dlna.subscriptions.subscribe(service, asked.callbacks);
      if (subscribed === null) return reply.code(412).send();
      return reply
        .code(200)
        .header('sid', subscribed.sid)
        .header('timeout', `Second-${GENA_TIMEOUT_SECONDS}`)
        .send();
    };
    scope.route<{ Params: { service: string } }>({
      method: 'SUBSCRIBE',
      url: EVENTS_ROUTE,
      handler: (request, reply) => events(request, reply, 'SUBSCRIBE'),
    });
    scope.route<{ Params: { service: string } }>({
      method: 'UNSUBSCRIBE',
      url: EVENTS_ROUTE,
      handler: (request, reply) => events(request, reply, 'UNSUBSCRIBE'),
    });
  });
}

/** GET /api/dlna's body (contract/src/api.ts DlnaStatusView). */
export function dlnaStatusView(status: DlnaStatus): DlnaStatusView {
  return {
    enabled: status.enabled,
    person: status.person,
    person_found: status.personFound,
    hint: status.hint,
    friendly_name: status.friendlyName,
    udn: status.udn,
    recent_tvs: status.recentTvs.map((tv) => ({
      address: tv.address,
      user_agent: tv.userAgent,
      av_client_info: tv.avClientInfo,
      first_seen: tv.firstSeen.toISOString(),
      last_seen: tv.lastSeen.toISOString(),
      last_action: tv.lastAction,
    })),
  };
}

/** Admins: whether DLNA is on, for whom, and which TVs asked lately. */
function registerDlnaAdminRoutes(app: FastifyInstance, dlna: DlnaServices): void {
  app.get('/api/dlna', async () => dlnaStatusView(await dlna.status()));
}
