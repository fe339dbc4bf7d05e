/**
 * Reading a posted Jellyfin `DeviceProfile` (PlaybackInfo's body) before it is translated: only the
 * members device-profile.ts reads, each of the type it expects, so a malformed profile is a 400 that
 * names the member (it was a 500: the translation called string and array methods on whatever came).
 * Lenient where apps differ: member names in any case, a number where text is expected (and numeric
 * text where a number is), `null` for "not given". Unknown members are dropped.
 */
import type { JellyfinDeviceProfile } from './device-profile.ts';

type Kind = 'text' | 'number' | 'boolean' | { list: Shape };
type Shape = Readonly<Record<string, Kind>>;

/** Longest list read (real profiles hold a few dozen entries; the body limit bounds the rest). */
export const MAX_PROFILE_LIST = 500;

const CONDITION: Shape = { Condition: 'text', Property: 'text', Value: 'text', IsRequired: 'boolean' };
const PROFILE: Shape = {
  Name: 'text',
  MaxStreamingBitrate: 'number',
  MaxStaticBitrate: 'number',
  DirectPlayProfiles: { list: { Container: 'text', VideoCodec: 'text', AudioCodec: 'text', Type: 'text' } },
  TranscodingProfiles: {
    list: {
      Container: 'text',
      Type: 'text',
      VideoCodec: 'text',
      AudioCodec: 'text',
      Protocol: 'text',
      MaxAudioChannels: 'text',
    },
  },
  CodecProfiles: {
    list: {
      Type: 'text',
      Codec: 'text',
      Container: 'text',
      Conditions: { list: CONDITION },
      ApplyConditions: { list: CONDITION },
    },
  },
  SubtitleProfiles: { list: { Format: 'text', Method: 'text' } },
};

export type DeviceProfileRead =
  { ok: true; profile: JellyfinDeviceProfile | null } | { ok: false; field: string; message: string };

class Malformed extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readValue(value: unknown, kind: Kind, field: string): unknown {
  if (kind === 'text') {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new Malformed(field, 'must be text');
  }
  if (kind === 'number') {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim())) return Number(value);
    throw new Malformed(field, 'must be a number');
  }
  if (kind === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new Malformed(field, 'must be true or false');
  }
  if (!Array.isArray(value)) throw new Malformed(field, 'must be a list');
  if (value.length > MAX_PROFILE_LIST)
    throw new Malformed(field, `holds at most ${MAX_PROFILE_LIST} entries`);
  return value.map((entry: unknown, i) => readObject(entry, kind.list, `${field}[${i}]`));
}

function readObject(raw: unknown, shape: Shape, field: string): Record<string, unknown> {
  if (!isObject(raw)) throw new Malformed(field, 'must be an object');
  const byLowerName = new Map(Object.keys(shape).map((name) => [name.toLowerCase(), name]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = byLowerName.get(key.toLowerCase());
    if (name === undefined || value === null || value === undefined) continue;
    const kind = shape[name];
    if (kind !== undefined) out[name] = readValue(value, kind, `${field}.${name}`);
  }
  return out;
}

/**
 * A posted `DeviceProfile` as the translation reads it; `undefined`/`null` → no profile (the default
 * device). The field of a failure is its path, e.g. `DeviceProfile.CodecProfiles[1].Conditions[0].Value`.
 * @example readDeviceProfile({ directPlayProfiles: [{ Container: 'mp4' }] })
 *   // { ok: true, profile: { DirectPlayProfiles: [{ Container: 'mp4' }] } }
 */
export function readDeviceProfile(raw: unknown): DeviceProfileRead {
  if (raw === undefined || raw === null) return { ok: true, profile: null };
  try {
    return { ok: true, profile: readObject(raw, PROFILE, 'DeviceProfile') as JellyfinDeviceProfile };
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, field: err.field, message: err.message };
    throw err;
  }
}
