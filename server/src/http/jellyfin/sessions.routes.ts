import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import { ticksToSeconds, toWireJson } from '../../domain/jellyfin/wire.ts';
import { AppError, notFound } from '../../errors.ts';
import type { JellyfinLibraryService } from '../../services/jellyfin/jellyfin-library.service.ts';
import type {
  JellyfinPlaystateService,
  PlaybackReport,
} from '../../services/jellyfin/jellyfin-playstate.service.ts';
import type { SessionService } from '../../services/people/session.service.ts';
import { principalOf } from '../principal.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';
import { acceptAnyJsonBody } from './lenient-body.ts';

export interface JellyfinSessionDeps {
  playstate: JellyfinPlaystateService;
  library: JellyfinLibraryService;
  sessions: Pick<SessionService, 'signOut'>;
  serverId: string;
}

type Bag = Record<string, unknown>;

/** A member of a body or query in any case (apps send `ItemId`, `itemId` or `itemid`). */
function member(bag: Bag, key: string): unknown {
  const wanted = key.toLowerCase();
  for (const [k, v] of Object.entries(bag)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * A progress body (players.md §1.8), or the old `/PlayingItems/{id}` form's query; whatever is
 * missing or malformed is left out (an app's report is never refused for a member we do not use).
 */
function reportOf(body: Bag, itemId: string | null = null): PlaybackReport {
  return {
    itemId: itemId ?? text(member(body, 'ItemId')),
    mediaSourceId: text(member(body, 'MediaSourceId')),
    positionSeconds: ticksToSeconds(member(body, 'PositionTicks')),
    playMethod: text(member(body, 'PlayMethod')),
    failed: member(body, 'Failed') === true || member(body, 'Failed') === 'true',
  };
}

function bodyOf(request: FastifyRequest): Bag {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Bag) : {};
}

function queryOf(request: FastifyRequest): Bag {
  return (request.query ?? {}) as Bag;
}

function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** A `userId` in the path must be the caller's own (items.routes.ts says why). */
function checkOwnUser(request: FastifyRequest, library: JellyfinLibraryService): void {
  const given = (request.params as Bag).userid;
  if (typeof given !== 'string') return;
  if (library.ids.decodeAs('user', given) === principalOf(request).userId) return;
  throw new AppError('forbidden', {
    message: 'A token changes only its own person’s state.',
    hint: 'Leave userId out or send the Id that AuthenticateByName returned.',
  });
}

/**
 * Progress, played, the session list and sign-out (players.md §1.4, §1.8). Thin: what a report
 * means for the person's watch state, history and "now playing" is JellyfinPlaystateService's.
 * The void calls answer 204 with no body whatever `Accept` says (the SDK sends only `text/html`).
 */
export function registerJellyfinSessionRoutes(parent: FastifyInstance, deps: JellyfinSessionDeps): void {
  // One scope: its lenient body reading (lenient-body.ts) stays inside the facade.
  void parent.register(async (app) => {
    acceptAnyJsonBody(app);
    const { playstate, library } = deps;
    const client = (request: FastifyRequest) => {
      const { client: c } = readJellyfinCredentials(request.headers, {});
      return { app: c.client, device: c.device };
    };

    app.post(`${JELLYFIN_PREFIX}/sessions/playing`, async (request, reply) => {
      await playstate.progress(principalOf(request), client(request), reportOf(bodyOf(request)));
      return noContent(reply);
    });
    app.post(`${JELLYFIN_PREFIX}/sessions/playing/progress`, async (request, reply) => {
      await playstate.progress(principalOf(request), client(request), reportOf(bodyOf(request)));
      return noContent(reply);
    });
    app.post(`${JELLYFIN_PREFIX}/sessions/playing/stopped`, async (request, reply) => {
      await playstate.stopped(principalOf(request), reportOf(bodyOf(request)));
      return noContent(reply);
    });
    app.post(`${JELLYFIN_PREFIX}/sessions/playing/ping`, async (request, reply) => {
      playstate.ping(principalOf(request));
      return noContent(reply);
    });

    // The old forms (Kodi, older apps): the item in the path, the rest in the query.
    for (const base of ['', '/users/:userid']) {
      app.post<{ Params: { itemid: string } }>(
        `${JELLYFIN_PREFIX}${base}/playingitems/:itemid`,
        async (request, reply) => {
          checkOwnUser(request, library);
          const report = reportOf(queryOf(request), request.params.itemid);
          await playstate.progress(principalOf(request), client(request), report);
          return noContent(reply);
        },
      );
      app.post<{ Params: { itemid: string } }>(
        `${JELLYFIN_PREFIX}${base}/playingitems/:itemid/progress`,
        async (request, reply) => {
          checkOwnUser(request, library);
          const report = reportOf(queryOf(request), request.params.itemid);
          await playstate.progress(principalOf(request), client(request), report);
          return noContent(reply);
        },
      );
      app.delete<{ Params: { itemid: string } }>(
        `${JELLYFIN_PREFIX}${base}/playingitems/:itemid`,
        async (request, reply) => {
          checkOwnUser(request, library);
          await playstate.stopped(principalOf(request), reportOf(queryOf(request), request.params.itemid));
          return noContent(reply);
        },
      );
    }

    // Played / not played → the item's UserItemDataDto afterwards.
    const played =
      (value: boolean) =>
      async (
        request: FastifyRequest<{ Params: { itemid: string } }>,
        reply: FastifyReply,
      ): Promise<string> => {
        checkOwnUser(request, library);
        const viewer = principalOf(request);
        const { itemid } = request.params;
        const changed = await playstate.setPlayed(viewer, itemid, value);
        const item = changed ? await library.itemDto(viewer, itemid) : null;
        // A hidden, unknown or forged id answers alike.
        if (item === null) throw notFound('item', itemid.slice(0, 64));
        reply.type('application/json; charset=utf-8');
        return toWireJson(item.UserData);
      };
    for (const path of ['/userplayeditems/:itemid', '/users/:userid/playeditems/:itemid']) {
      app.post(`${JELLYFIN_PREFIX}${path}`, played(true));
      app.delete(`${JELLYFIN_PREFIX}${path}`, played(false));
    }

    // Sign-out ends this token's session at once (Jellyfin's ReportSessionEnded).
    app.post(`${JELLYFIN_PREFIX}/sessions/logout`, async (request, reply) => {
      const { credential } = principalOf(request);
      if (credential.kind === 'session' && credential.id !== null) await deps.sessions.signOut(credential.id);
      return noContent(reply);
    });

    // The apps announce what they can do; reelshelf has no remote control to offer them.
    app.post(`${JELLYFIN_PREFIX}/sessions/capabilities`, async (_request, reply) => noContent(reply));
    app.post(`${JELLYFIN_PREFIX}/sessions/capabilities/full`, async (_request, reply) => noContent(reply));

    // The caller's own session (a person sees no one else's; reelshelf lists sessions on its own pages).
    app.get(`${JELLYFIN_PREFIX}/sessions`, async (request, reply) => {
      const principal = principalOf(request);
      const { client: c } = readJellyfinCredentials(request.headers, {});
      const id = principal.credential.id;
      reply.type('application/json; charset=utf-8');
      if (principal.credential.kind !== 'session' || id === null) return '[]';
      return toWireJson([
        {
          Id: library.ids.encode('session', id),
          UserId: library.ids.encode('user', principal.userId),
          UserName: principal.name,
          Client: c.client,
          DeviceName: c.device,
          DeviceId: c.deviceId,
          ApplicationVersion: c.version,
          IsActive: true,
          SupportsRemoteControl: false,
          SupportsMediaControl: false,
          PlayableMediaTypes: ['Video'],
          ServerId: deps.serverId,
        },
      ]);
    });
  });
}
