import type { FastifyInstance } from 'fastify';
import { readJellyfinCredentials } from '../../domain/jellyfin/auth-header.ts';
import type { JellyfinIds } from '../../domain/jellyfin/ids.ts';
import { jellyfinDate, toWireJson } from '../../domain/jellyfin/wire.ts';
import { validationFailed } from '../../errors.ts';
import type { SessionService } from '../../services/people/session.service.ts';
import type { JellyfinLibraryService } from '../../services/jellyfin/jellyfin-library.service.ts';
import { JELLYFIN_PREFIX } from './credentials.ts';
import { registerJellyfinItemRoutes } from './items.routes.ts';
import { registerJellyfinImageRoutes } from './images.routes.ts';
import type { JellyfinImagesService } from '../../services/jellyfin/jellyfin-images.service.ts';

/**
 * The Jellyfin-compatible facade (issue 23, docs/jellyfin.md): thin routes translating Jellyfin's
 * wire format to reelshelf's services. Paths are registered in lower case (see credentials.ts).
 */
export interface JellyfinDeps {
  sessions: SessionService;
  ids: JellyfinIds;
  serverName: string;
  library: JellyfinLibraryService;
  images: JellyfinImagesService;
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
  registerJellyfinImageRoutes(app, deps.images, deps.sessions);

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
    const isAdmin = user.role === 'admin';
    const now = jellyfinDate(session.created_at);
    return sendWire(reply, {
      User: {
        Name: user.name,
        ServerId: serverId,
        Id: userId,
        HasPassword: user.password_hash !== null,
        HasConfiguredPassword: user.password_hash !== null,
        HasConfiguredEasyPassword: false,
        EnableAutoLogin: false,
        LastLoginDate: now,
        LastActivityDate: now,
        // Infuse needs Configuration and Policy filled in (players.md §1.4).
        Configuration: {
          PlayDefaultAudioTrack: true,
          SubtitleLanguagePreference: '',
          DisplayMissingEpisodes: false,
          SubtitleMode: 'Default',
          EnableNextEpisodeAutoPlay: false,
          HidePlayedInLatest: true,
          RememberAudioSelections: true,
          RememberSubtitleSelections: true,
          OrderedViews: [],
          LatestItemsExcludes: [],
          MyMediaExcludes: [],
          GroupedFolders: [],
        },
        Policy: {
          IsAdministrator: isAdmin,
          IsHidden: true,
          IsDisabled: false,
          EnableUserPreferenceAccess: true,
          EnableRemoteControlOfOtherUsers: false,
          EnableSharedDeviceControl: false,
          EnableRemoteAccess: true,
          EnableLiveTvManagement: false,
          EnableLiveTvAccess: false,
          EnableMediaPlayback: true,
          EnableAudioPlaybackTranscoding: true,
          EnableVideoPlaybackTranscoding: true,
          EnablePlaybackRemuxing: true,
          EnableContentDeletion: false,
          EnableContentDownloading: true,
          EnableSyncTranscoding: false,
          EnableMediaConversion: false,
          EnableAllDevices: true,
          EnableAllChannels: false,
          EnableAllFolders: true,
          EnablePublicSharing: false,
          InvalidLoginAttemptCount: 0,
          LoginAttemptsBeforeLockout: -1,
          MaxActiveSessions: 0,
          RemoteClientBitrateLimit: 0,
          AuthenticationProviderId: 'reelshelf',
          PasswordResetProviderId: 'reelshelf',
          SyncPlayAccess: 'None',
        },
      },
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
