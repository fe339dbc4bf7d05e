import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_PROFILE_LIST, readDeviceProfile } from '../../../src/domain/jellyfin/device-profile-input.ts';

describe('readDeviceProfile: a posted DeviceProfile, as the translation reads it', () => {
  const good: [string, unknown, unknown][] = [
    ['absent', undefined, null],
    ['null', null, null],
    ['empty', {}, {}],
    [
      'member names in any case, unknown members dropped, null = not given',
      { directplayprofiles: [{ container: 'mp4', VIDEOCODEC: 'h264', Extra: 1, AudioCodec: null }], Foo: [] },
      { DirectPlayProfiles: [{ Container: 'mp4', VideoCodec: 'h264' }] },
    ],
    [
      'numbers where text is expected, numeric text where a number is',
      {
        MaxStreamingBitrate: '8000000',
        TranscodingProfiles: [{ MaxAudioChannels: 6 }],
        CodecProfiles: [{ Conditions: [{ Value: 41, IsRequired: 'false' }] }],
      },
      {
        MaxStreamingBitrate: 8_000_000,
        TranscodingProfiles: [{ MaxAudioChannels: '6' }],
        CodecProfiles: [{ Conditions: [{ Value: '41', IsRequired: false }] }],
      },
    ],
  ];
  for (const [name, raw, profile] of good) {
    it(`reads: ${name}`, () => assert.deepEqual(readDeviceProfile(raw), { ok: true, profile }));
  }
  const bad: [unknown, string, string][] = [
    ['phone', 'DeviceProfile', 'must be an object'],
    [[1], 'DeviceProfile', 'must be an object'],
    [{ DirectPlayProfiles: 'x' }, 'DeviceProfile.DirectPlayProfiles', 'must be a list'],
    [{ DirectPlayProfiles: [{}, null] }, 'DeviceProfile.DirectPlayProfiles[1]', 'must be an object'],
    [{ SubtitleProfiles: [{ Format: ['srt'] }] }, 'DeviceProfile.SubtitleProfiles[0].Format', 'must be text'],
    [
      { CodecProfiles: [{ ApplyConditions: [{ Property: {} }] }] },
      'DeviceProfile.CodecProfiles[0].ApplyConditions[0].Property',
      'must be text',
    ],
    [{ MaxStreamingBitrate: Number.NaN }, 'DeviceProfile.MaxStreamingBitrate', 'must be a number'],
    [{ MaxStaticBitrate: '1e9' }, 'DeviceProfile.MaxStaticBitrate', 'must be a number'],
    [
      { CodecProfiles: [{ Conditions: [{ IsRequired: 'yes' }] }] },
      'DeviceProfile.CodecProfiles[0].Conditions[0].IsRequired',
      'must be true or false',
    ],
    [
      { DirectPlayProfiles: Array.from({ length: MAX_PROFILE_LIST + 1 }, () => ({})) },
      'DeviceProfile.DirectPlayProfiles',
      `holds at most ${MAX_PROFILE_LIST} entries`,
    ],
  ];
  for (const [raw, field, message] of bad) {
    it(`refuses ${field}: ${message}`, () =>
      assert.deepEqual(readDeviceProfile(raw), { ok: false, field, message }));
  }
});
