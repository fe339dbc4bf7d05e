import { jellyfinDate } from './wire.ts';

/** What a Jellyfin `UserDto` is made of: a reelshelf person as the facade shows them. */
export interface UserDtoInput {
  /** The person's 32-hex id (JellyfinIds kind `user`). */
  id: string;
  name: string;
  isAdmin: boolean;
  hasPassword: boolean;
  serverId: string;
  /** Their last sign-in and activity (the session's time). */
  at: string;
}

/** A Jellyfin `UserDto` as built here (checked against the SDK's model in sdk-shapes.check.ts). */
export type UserDto = ReturnType<typeof userDto>;

/**
 * A Jellyfin `UserDto` (AuthenticateByName, `/Users/Me`, `/Users/{id}`). Infuse needs
 * `Configuration` and `Policy` filled in (players.md §1.4).
 */
export function userDto(input: UserDtoInput) {
  const at = jellyfinDate(input.at);
  return {
    Name: input.name,
    ServerId: input.serverId,
    Id: input.id,
    HasPassword: input.hasPassword,
    HasConfiguredPassword: input.hasPassword,
    HasConfiguredEasyPassword: false,
    EnableAutoLogin: false,
    LastLoginDate: at,
    LastActivityDate: at,
    Configuration: {
      PlayDefaultAudioTrack: true,
      SubtitleLanguagePreference: '',
      DisplayMissingEpisodes: false,
      SubtitleMode: 'Default' as const,
      EnableNextEpisodeAutoPlay: false,
      HidePlayedInLatest: true,
      RememberAudioSelections: true,
      RememberSubtitleSelections: true,
      OrderedViews: [] as string[],
      LatestItemsExcludes: [] as string[],
      MyMediaExcludes: [] as string[],
      GroupedFolders: [] as string[],
    },
    Policy: {
      IsAdministrator: input.isAdmin,
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
      SyncPlayAccess: 'None' as const,
    },
  };
}
