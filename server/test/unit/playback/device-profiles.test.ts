import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEVICE_IDS,
  getDeviceProfile,
  isDeviceId,
  listDeviceProfiles,
  validateDeviceProfile,
} from '../../../src/domain/playback/device-profiles.ts';
import { profileOf, tizen4Json } from './fixtures.ts';

describe('built-in device profiles', () => {
  it('has exactly the six INTERFACE.md device ids, in order', () => {
    assert.deepEqual([...DEVICE_IDS], ['web', 'safari', 'tv', 'androidtv', 'roku', 'full']);
    assert.deepEqual(
      listDeviceProfiles().map((p) => p.id),
      [...DEVICE_IDS],
    );
  });
  it('looks profiles up by id; unknown ids give null', () => {
    assert.equal(getDeviceProfile('tv')?.name, 'Apple TV');
    assert.equal(getDeviceProfile('kodi'), null);
    assert.equal(isDeviceId('roku'), true);
    assert.equal(isDeviceId('ROKU'), false);
  });
  for (const id of DEVICE_IDS) {
    it(`${id} passes its own validator and survives a JSON round trip`, () => {
      const json: unknown = JSON.parse(JSON.stringify(profileOf(id)));
      const result = validateDeviceProfile(json);
      assert.deepEqual(result.ok ? [] : result.errors, []);
      assert.deepEqual(result.ok && result.profile, profileOf(id));
    });
  }
  it('built-in profiles are frozen', () => {
    const web = profileOf('web');
    assert.throws(() => web.containers.push('avi'));
    assert.equal(Object.isFrozen(web.video.codecs[0]), true);
  });
  it('web encodes the Debian Chromium facts', () => {
    const web = profileOf('web');
    const videoCodecs = web.video.codecs.map((rule) => rule.codec);
    const audioCodecs = web.audio.codecs.map((rule) => rule.codec);
    assert.ok(web.containers.includes('mkv'), 'mkv plays');
    for (const codec of ['h264', 'vp9', 'av1']) assert.ok(videoCodecs.includes(codec), codec);
    assert.ok(!videoCodecs.includes('hevc'), 'no hevc');
    for (const codec of ['ac3', 'eac3', 'dts', 'truehd']) assert.ok(!audioCodecs.includes(codec), codec);
    assert.equal(web.audio.track_switching, false);
  });
  it('tv never plays DTS or TrueHD and converts multichannel to E-AC3, stereo to AAC', () => {
    const tv = profileOf('tv');
    const audioCodecs = tv.audio.codecs.map((rule) => rule.codec);
    assert.ok(!audioCodecs.includes('dts') && !audioCodecs.includes('truehd'), 'no dts/truehd');
    assert.deepEqual(
      tv.conversion.audio.map((t) => [t.codec, t.min_source_channels]),
      [
        ['eac3', 3],
        ['aac', 1],
      ],
    );
    assert.deepEqual(tv.conversion.video[0], { codec: 'hevc', tag: 'hvc1', hdr_sources_only: true });
    assert.equal(tv.conversion.container, 'mp4');
  });
});

describe('prefers_hls: which players get an HLS URL for a file they could open directly', () => {
  const table: [string, boolean][] = [
    ['web', false],
    ['safari', true],
    ['tv', true],
    ['androidtv', true],
    ['roku', true],
    ['full', false],
  ];
  for (const [id, prefers] of table) {
    it(`${id}: ${prefers}`, () => assert.equal(profileOf(id).prefers_hls, prefers));
  }
  it('is optional in a user profile (false when absent) and must be a boolean when given', () => {
    const without = structuredClone(tizen4Json) as Record<string, unknown>;
    delete without.prefers_hls;
    const plain = validateDeviceProfile(without);
    assert.equal(plain.ok && plain.profile.prefers_hls, false);
    const yes = validateDeviceProfile({ ...without, prefers_hls: true });
    assert.equal(yes.ok && yes.profile.prefers_hls, true);
    const wrong = validateDeviceProfile({ ...without, prefers_hls: 'yes' });
    assert.deepEqual(wrong.ok ? [] : wrong.errors, ['profile.prefers_hls: must be a boolean']);
  });
});

describe('validateDeviceProfile', () => {
  it('accepts a user profile written as JSON', () => {
    const result = validateDeviceProfile(tizen4Json);
    assert.equal(result.ok, true);
  });
  it('rejects non-objects', () => {
    const result = validateDeviceProfile('web');
    assert.equal(result.ok, false);
  });
  it('reports typos, wrong types and useless conversion targets with their paths', () => {
    const broken = structuredClone(tizen4Json) as Record<string, unknown>;
    broken.id = 'My TV';
    broken.containers = 'mp4';
    broken.video = { codecs: [{ codec: 'h264', max_levl: 5 }], hdr: ['dolby'], dolby_vision: null };
    broken.audio = { codecs: [{ codec: 'aac', max_channels: -2 }], passthrough: [], track_switching: 'yes' };
    broken.subtitles = { embedded: [], sidecar: [], styled_text: 'maybe', artifact_text_format: 3 };
    broken.conversion = { container: 'mp4', video: [{ codec: 'av1' }], audio: [] };
    broken.extra = true;
    const result = validateDeviceProfile(broken);
    assert.equal(result.ok, false);
    const errors = result.ok ? [] : result.errors;
    const expected = [
      'profile.extra: unknown key',
      'profile.id: must be lower-case letters, digits, "-" or "_"',
      'profile.containers: must be an array of non-empty strings',
      'video.codecs[0].max_levl: unknown key',
      'video.hdr: unknown HDR format "dolby"',
      'audio.codecs[0].max_channels: must be a positive number',
      'audio.track_switching: must be a boolean',
      'subtitles.styled_text: must be one of render, convert, burn_in',
      'subtitles.artifact_text_format: must be a string or null',
      'conversion.audio: needs at least one target',
      'conversion.video: target av1 is not in video.codecs',
    ];
    for (const message of expected)
      assert.ok(errors.includes(message), `missing "${message}" in ${errors.join(' | ')}`);
  });
});
