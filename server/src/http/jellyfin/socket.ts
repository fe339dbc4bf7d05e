import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type WebSocketConnection, acceptWebSocket, refuseUpgrade } from '../../adapters/websocket.ts';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import {
  SOCKET_LOST_SECONDS,
  SOCKET_NUDGE_SECONDS,
  forceKeepAliveMessage,
  inboundMessageType,
  keepAliveMessage,
  playstateMessage,
} from '../../domain/jellyfin/socket-messages.ts';
import type { NowPlayingService } from '../../services/playback/now-playing.service.ts';
import type { SessionService } from '../../services/people/session.service.ts';
import { JELLYFIN_PREFIX, rewriteJellyfinUrl } from './credentials.ts';

export interface JellyfinSocketDeps {
  sessions: Pick<SessionService, 'authenticate' | 'isLive'>;
  plays: Pick<NowPlayingService, 'whenStopped'>;
  /** Milliseconds now (tests move it). */
  now?: () => number;
}

interface OpenSocket {
  connection: WebSocketConnection;
  sessionId: number;
  lastSeenMs: number;
}

const SOCKET_PATH = `${JELLYFIN_PREFIX}/socket`;

/** A Jellyfin message id: a GUID in its `N` form. */
function messageId(): string {
  return randomUUID().replaceAll('-', '');
}

/**
 * Jellyfin's session socket on `/jellyfin/socket` (also `/emby/socket`, any case): opened with the
 * app's token (the `ApiKey`/`api_key` query, as the apps do, or any header form), kept alive as
 * Jellyfin does (ForceKeepAlive on open, KeepAlive answered, a socket silent for 60 s dropped), and
 * the way an admin's stop reaches the app: a `Playstate` Stop to every socket of the play's session.
 * Sockets close with the server.
 */
export function registerJellyfinSocket(app: FastifyInstance, deps: JellyfinSocketDeps): void {
  const now = deps.now ?? Date.now;
  const open = new Set<OpenSocket>();

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = rewriteJellyfinUrl(request.url ?? '/');
    const [path = '', search = ''] = url.split('?', 2);
    if (path !== SOCKET_PATH) {
      refuseUpgrade(socket, 404, 'Not Found', {
        error: 'not_found',
        message: `No WebSocket at ${path}.`,
        hint: `The Jellyfin session socket is ${SOCKET_PATH}.`,
      });
      return;
    }
    void (async () => {
      const query = Object.fromEntries(new URLSearchParams(search));
      const { token } = readJellyfinCredentials(request.headers, query);
      const found = token === null ? null : await deps.sessions.authenticate(token);
      const sessionId = found?.principal.credential.kind === 'session' ? found.principal.credential.id : null;
      if (sessionId === null || sessionId === undefined) {
        refuseUpgrade(socket, 401, 'Unauthorized', {
          error: 'unauthorized',
          message: 'The socket needs the token of a signed-in app.',
          hint: 'Open /socket?ApiKey=<AccessToken from AuthenticateByName>.',
        });
        return;
      }
      const connection = await acceptWebSocket(request, socket, head);
      if (connection === null) return;
      const entry: OpenSocket = { connection, sessionId, lastSeenMs: now() };
      open.add(entry);
      connection.onClose(() => open.delete(entry));
      connection.onText((text) => {
        entry.lastSeenMs = now();
        if (inboundMessageType(text) === 'KeepAlive') connection.send(keepAliveMessage(messageId()));
      });
      connection.send(forceKeepAliveMessage(messageId()));
    })().catch(() => socket.destroy());
  };

  // As Jellyfin's keep-alive timer: nudge quiet sockets, drop lost ones; and the sockets of a
  // signed-out or revoked session close (1008) within one round.
  const sweep = setInterval(() => {
    const at = now();
    for (const entry of open) {
      const silent = (at - entry.lastSeenMs) / 1000;
      if (silent >= SOCKET_LOST_SECONDS) entry.connection.close(1001);
      else if (silent > SOCKET_NUDGE_SECONDS) entry.connection.send(forceKeepAliveMessage(messageId()));
      void deps.sessions
        .isLive(entry.sessionId)
        .then((live) => {
          if (!live) entry.connection.close(1008);
        })
        .catch(() => undefined);
    }
  }, SOCKET_LOST_SECONDS * 200);
  sweep.unref();

  const stopListening = deps.plays.whenStopped(({ holder }) => {
    if (holder.credential.kind !== 'session') return;
    for (const entry of open) {
      if (entry.sessionId === holder.credential.id)
        entry.connection.send(playstateMessage('Stop', messageId()));
    }
  });

  app.server.on('upgrade', onUpgrade);
  // Before the server stops listening: it waits for its connections, upgraded ones among them.
  app.addHook('preClose', async () => {
    clearInterval(sweep);
    stopListening();
    app.server.off('upgrade', onUpgrade);
    for (const entry of open) entry.connection.close(1001);
    open.clear();
  });
}
