import {
  type DeviceProfile,
  listDeviceProfiles,
  validateDeviceProfile,
} from '../../domain/playback/device-profiles.ts';
import { AppError } from '../../errors.ts';

/** How many posted profiles are kept (one per app version and settings; a household has a few). */
const ADOPTED_MAX = 256;

/** A user profile file as read from `<data dir>/devices` (or why it could not be read). */
export type DeviceProfileFile = { name: string; text: string } | { name: string; error: string };

/**
 * The device profiles clients may name: the built-in six plus any the user adds as JSON files in
 * `<data dir>/devices/*.json` (read at start by the storage adapter, validated here; a bad file is
 * reported, not fatal).
 */
export class DeviceProfileService {
  private readonly profiles = new Map<string, DeviceProfile>();
  /**
   * Profiles an app posted (the Jellyfin facade's PlaybackInfo), under ids made from their content:
   * kept in memory, the least recently used dropped past {@link ADOPTED_MAX}, never listed.
   */
  private readonly adopted = new Map<string, DeviceProfile>();
  /**
   * Profiles a facade defines for the devices it recognises (the DLNA TV families): resolvable by
   * id like a built-in one, never listed, never dropped. A user profile of the same id wins.
   */
  private readonly facades = new Map<string, DeviceProfile>();
  readonly problems: string[] = [];

  constructor(userFiles: readonly DeviceProfileFile[] = []) {
    for (const p of listDeviceProfiles()) this.profiles.set(p.id, p);
    for (const file of userFiles) this.addUserProfile(file);
  }

  private addUserProfile(file: DeviceProfileFile): void {
    const name = file.name;
    if ('error' in file) {
      this.problems.push(`devices/${name}: not readable (${file.error})`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(file.text);
    } catch (err) {
      this.problems.push(
        `devices/${name}: not valid JSON (${err instanceof Error ? err.message : String(err)})`,
      );
      return;
    }
    const check = validateDeviceProfile(parsed);
    if (!check.ok) {
      this.problems.push(`devices/${name}: ${check.errors.slice(0, 3).join('; ')}`);
      return;
    }
    this.profiles.set(check.profile.id, check.profile);
  }

  ids(): string[] {
    return [...this.profiles.keys()];
  }

  list(): DeviceProfile[] {
    return [...this.profiles.values()];
  }

  /**
   * Makes a profile an app posted resolvable by its id for the stream, HLS and subtitle URLs handed
   * to that app. The id must not name a built-in or user profile (the caller derives it from the
   * content with a prefix of its own).
   */
  adopt(profile: DeviceProfile): void {
    if (this.profiles.has(profile.id) || this.facades.has(profile.id))
      throw new Error(`device id ${profile.id} is taken`);
    this.adopted.delete(profile.id);
    this.adopted.set(profile.id, profile);
    while (this.adopted.size > ADOPTED_MAX) {
      const oldest = this.adopted.keys().next().value;
      if (oldest === undefined) break;
      this.adopted.delete(oldest);
    }
  }

  /**
   * Makes a facade's own profile resolvable by its id (see `facades`); false when a user profile
   * file already defines that id (it is kept: the household knows its TV better).
   */
  register(profile: DeviceProfile): boolean {
    if (this.profiles.has(profile.id)) return false;
    this.facades.set(profile.id, profile);
    return true;
  }

  /** The profile for the `device` query value (`web` when absent), or 400 unknown_device. */
  resolve(device: string | undefined): DeviceProfile {
    const id = device === undefined || device === '' ? 'web' : device;
    const profile = this.profiles.get(id);
    if (profile !== undefined) return profile;
    const facade = this.facades.get(id);
    if (facade !== undefined) return facade;
    const adopted = this.adopted.get(id);
    if (adopted !== undefined) {
      // Recently used: kept longest.
      this.adopted.delete(id);
      this.adopted.set(id, adopted);
      return adopted;
    }
    throw new AppError('unknown_device', {
      message: `Unknown device "${id.slice(0, 64)}".`,
      hint: `Use one of: ${this.ids().join(', ')}.`,
      extra: { known_devices: this.ids() },
    });
  }
}
