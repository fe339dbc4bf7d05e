import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateDeviceProfile } from '../../../src/domain/playback/device-profiles.ts';
import { TV_FAMILIES } from '../../../src/domain/dlna/tv-family.ts';
import { tvProfile, tvProfileId, tvProfiles } from '../../../src/domain/dlna/tv-profiles.ts';
import { DeviceProfileService } from '../../../src/services/playback/device-profile.service.ts';

describe('the DLNA TV profiles', () => {
  for (const family of TV_FAMILIES) {
    it(`${family}: a valid device profile (as a user profile file would be checked)`, () => {
      const check = validateDeviceProfile(JSON.parse(JSON.stringify(tvProfile(family))));
      assert.ok(check.ok, check.ok ? '' : check.errors.join('; '));
      assert.equal(check.profile.id, tvProfileId(family));
      // Conversions are H.264 with AAC (and AC-3 where the TV takes it): what MPEG-TS segments carry.
      assert.deepEqual(
        check.profile.conversion.video.map((v) => v.codec),
        ['h264'],
      );
      for (const target of check.profile.conversion.audio) assert.ok(['aac', 'ac3'].includes(target.codec));
    });
  }

  it('no TV is said to decode DTS', () => {
    for (const profile of tvProfiles()) {
      assert.equal(
        profile.audio.codecs.some((rule) => rule.codec === 'dts' || rule.codec === '*'),
        false,
        profile.id,
      );
    }
  });

  it('registered, they resolve by id and are not listed; a user profile of the same id wins', () => {
    const devices = new DeviceProfileService();
    for (const profile of tvProfiles()) assert.equal(devices.register(profile), true);
    assert.equal(devices.resolve('dlna-samsung').name, 'Samsung TV (DLNA)');
    assert.equal(devices.resolve('dlna-generic').containers.join(), 'mp4');
    assert.equal(
      devices.ids().some((id) => id.startsWith('dlna-')),
      false,
    );
    assert.throws(() => devices.adopt(tvProfile('lg')), /taken/);

    const mine = { ...tvProfile('lg'), name: 'Our LG C1', audio: { ...tvProfile('lg').audio } };
    const withFile = new DeviceProfileService([{ name: 'dlna-lg.json', text: JSON.stringify(mine) }]);
    assert.equal(withFile.register(tvProfile('lg')), false);
    assert.equal(withFile.resolve('dlna-lg').name, 'Our LG C1');
  });
});
