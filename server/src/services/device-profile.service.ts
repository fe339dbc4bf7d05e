import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DeviceProfile,
  listDeviceProfiles,
  validateDeviceProfile,
} from '../domain/playback/device-profiles.ts';
import { AppError } from '../errors.ts';

/**
 * The device profiles clients may name: the built-in six plus any the user adds as JSON files in
 * `<data dir>/devices/*.json` (validated at start; a bad file is reported, not fatal).
 */
export class DeviceProfileService {
  private readonly profiles = new Map<string, DeviceProfile>();
  readonly problems: string[] = [];

  constructor(dataDir: string | null) {
    for (const p of listDeviceProfiles()) this.profiles.set(p.id, p);
    if (dataDir !== null) this.loadUserProfiles(join(dataDir, 'devices'));
  }

  private loadUserProfiles(dir: string): void {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      } catch (err) {
        this.problems.push(
          `devices/${name}: not valid JSON (${err instanceof Error ? err.message : String(err)})`,
        );
        continue;
      }
      const check = validateDeviceProfile(parsed);
      if (!check.ok) {
        this.problems.push(`devices/${name}: ${check.errors.slice(0, 3).join('; ')}`);
        continue;
      }
      this.profiles.set(check.profile.id, check.profile);
    }
  }

  ids(): string[] {
    return [...this.profiles.keys()];
  }

  list(): DeviceProfile[] {
    return [...this.profiles.values()];
  }

  /** The profile for the `device` query value (`web` when absent), or 400 unknown_device. */
  resolve(device: string | undefined): DeviceProfile {
    const id = device === undefined || device === '' ? 'web' : device;
    const profile = this.profiles.get(id);
    if (profile !== undefined) return profile;
    throw new AppError('unknown_device', {
      message: `Unknown device "${id.slice(0, 64)}".`,
      hint: `Use one of: ${this.ids().join(', ')}.`,
      extra: { known_devices: this.ids() },
    });
  }
}
