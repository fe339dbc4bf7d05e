import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { HttpTimeouts } from '../app.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';

/**
 * The Jellyfin facade at the root of its own port (REELSHELF_JELLYFIN_PORT, Jellyfin's 8096), where
 * apps and TVs look first. No second app and no second copy of the routes: a plain Node HTTP
 * server whose requests get the `/jellyfin` prefix and then enter the ONE Fastify app through its
 * router (`app.routing`, which also runs the app's `rewriteUrl`). So the same hooks (credentials,
 * access table, visibility guard, logging and its redaction, compression, errors) and the same
 * services serve both ports, and only the facade is reachable here: `/api/health` becomes
 * `/jellyfin/api/health`, which no route serves. URLs the facade hands out are server-relative
 * without the prefix (`/Items/{id}/Images/Primary`, `/videos/{id}/master.m3u8`), which the apps
 * resolve against the base they were given: `http://host:8096` or `http://host:8787/jellyfin`.
 */

const EMBY = /^\/emby(?=\/|\?|$)/i;

/** `/System/Info/Public` → `/jellyfin/System/Info/Public`; `/emby/…` stays (the app's rewrite takes it). */
export function jellyfinPortUrl(url: string): string {
  if (EMBY.test(url)) return url;
  return `${JELLYFIN_PREFIX}${url.startsWith('/') ? url : `/${url}`}`;
}

export interface JellyfinPortListener {
  /** Binds host:port (0 = any free port) and returns the URL bound, as Fastify's listen does. */
  listen(host: string, port: number): Promise<string>;
  /** The port bound, once listening. */
  readonly port: number | null;
  /** Stops taking connections; requests in flight finish (the app answers them with Connection: close). */
  close(): Promise<void>;
}

/** Fastify's own keep-alive time, so both ports behave alike towards a client. */
const KEEP_ALIVE_MS = 72_000;

export function createJellyfinPort(app: FastifyInstance, timeouts: HttpTimeouts): JellyfinPortListener {
  let closing = false;
  const server: Server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
    },
    (req, res) => {
      if (closing) res.setHeader('connection', 'close');
      req.url = jellyfinPortUrl(req.url ?? '/');
      app.routing(req, res);
    },
  );
  // A websocket (the facade's /socket) is upgraded by whatever the app listens with.
  server.on('upgrade', (req, socket, head) => {
    req.url = jellyfinPortUrl(req.url ?? '/');
    if (app.server.listenerCount('upgrade') === 0) socket.destroy();
    else app.server.emit('upgrade', req, socket, head);
  });
  return {
    get port() {
      const address = server.address();
      return address !== null && typeof address === 'object' ? address.port : null;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const { address, port: bound } = server.address() as AddressInfo;
          resolve(`http://${address.includes(':') ? `[${address}]` : address}:${bound}`);
        });
      });
    },
    close() {
      if (!server.listening) return Promise.resolve();
      closing = true;
      return new Promise((resolve) => {
        // A keep-alive connection that finishes its request after close() began would otherwise
        // wait out its keep-alive time: idle ones are reaped until the server has closed.
        const reaper = setInterval(() => server.closeIdleConnections(), 200);
        reaper.unref();
        server.close(() => {
          clearInterval(reaper);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
