import type { FastifyInstance } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import { userDto } from '../../domain/jellyfin/user-dto.ts';
import { jellyfinDate, toWireJson } from '../../domain/jellyfin/wire.ts';
import { validationFailed } from '../../errors.ts';
import type { SessionService } from '../../services/people/session.service.ts';
import type { JellyfinLibraryService } from '../../services/jellyfin/jellyfin-library.service.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';
import { registerJellyfinItemRoutes } from './items.routes.ts';
import { type JellyfinPlaybackRouteDeps, registerJellyfinPlaybackRoutes } from './playback.routes.ts';
import { registerJellyfinSessionRoutes } from './sessions.routes.ts';
import { registerJellyfinStubRoutes } from './stubs.routes.ts';
import { registerJellyfinSocket } from './socket.ts';
import type { NowPlayingService } from '../../services/playback/now-playing.service.ts';
import type { JellyfinPlaystateService } from '../../services/jellyfin/jellyfin-playstate.service.ts';
import type { UserService } from '../../services/people/user.service.ts';
import { registerJellyfinImageRoutes } from './images.routes.ts';
import type { JellyfinImagesService } from '../../services/jellyfin/jellyfin-images.service.ts';
import type { JellyfinTrickplayService } from '../../services/jellyfin/jellyfin-trickplay.service.ts';
import { registerJellyfinTrickplayRoutes } from './trickplay.routes.ts';

/**
 * The Jellyfin-compatible facade (issue 23, docs/jellyfin.md): thin routes translating Jellyfin's
 * wire format to reelshelf's services. Paths are registered in lower case (see credentials.ts).
 */
export interface JellyfinDeps {
  sessions: SessionService;
  ids: JellyfinIds;
  serverName: string;
  library: JellyfinLibraryService;
  playback?: JellyfinPlaybackRouteDeps;
  playstate: JellyfinPlaystateService;
  users: Pick<UserService, 'get'>;
  certificationCountry: string;
  plays: Pick<NowPlayingService, 'whenStopped'>;
  images: JellyfinImagesService;
  trickplay?: JellyfinTrickplayService;
}

/** The version reported: 10.11.x clears the Kotlin SDK's minimum (10.11.0) and rates GOOD in @jellyfin/sdk. */
export const JELLYFIN_VERSION = '10.11.0';

function sendWire(reply: { type(t: string): unknown }, body: unknown): string {
  reply.type('application/json; charset=utf-8');
  return toWireJson(body);
}

export function registerJellyfinRoutes(app: FastifyInstance, deps: JellyfinDeps): void {
  const serverId = deps.ids.serverId;
  registerJellyfinItemRoutes(app, deps.library);
  if (deps.playback !== undefined) registerJellyfinPlaybackRoutes(app, deps.playback);
  registerJellyfinSessionRoutes(app, { ...deps, serverId });
  registerJellyfinStubRoutes(app, { ...deps, version: JELLYFIN_VERSION });
  registerJellyfinSocket(app, deps);
  registerJellyfinImageRoutes(app, deps.images, deps.sessions);
  if (deps.trickplay !== undefined) registerJellyfinTrickplayRoutes(app, deps.trickplay);

  app.get(`${JELLYFIN_PREFIX}/system/info/public`, async (_request, reply) =>
    sendWire(reply, {
      LocalAddress: null,
      ServerName: deps.serverName,
      Version: JELLYFIN_VERSION,
      ProductName: 'Jellyfin Server',
      Id: serverId,
      StartupWizardCompleted: true,
    }),
  );

  app.post(`${JELLYFIN_PREFIX}/users/authenticatebyname`, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const name = body.Username;
    const password = body.Pw ?? '';
    if (typeof name !== 'string' || name.trim() === '') {
      throw validationFailed('Username', 'Username is required.');
    }
    if (typeof password !== 'string') throw validationFailed('Pw', 'Pw must be a string.');
    const { client } = readJellyfinCredentials(request.headers, {});
    const signedIn = await deps.sessions.signInDevice({
      name,
      password,
      address: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      appName: client.client,
      deviceName: client.device,
    });
    const { user, session, secret } = signedIn;
    const userId = deps.ids.encode('user', user.id);
    const now = jellyfinDate(session.created_at);
    return sendWire(reply, {
      User: userDto({
        id: userId,
        name: user.name,
        isAdmin: user.role === 'admin',
        hasPassword: user.password_hash !== null,
        serverId,
        at: session.created_at,
      }),
      SessionInfo: {
        // Names the reelshelf session without being its secret.
        Id: deps.ids.encode('session', session.id),
        UserId: userId,
        UserName: user.name,
        Client: client.client,
        DeviceName: client.device,
        DeviceId: client.deviceId,
        ApplicationVersion: client.version,
        LastActivityDate: now,
        IsActive: true,
        SupportsRemoteControl: false,
        ServerId: serverId,
      },
      AccessToken: secret,
      ServerId: serverId,
    });
  });
}
