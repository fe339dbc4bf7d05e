import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DataStore } from '../../../../src/adapters/data-store.ts';
import { getDeviceProfile } from '../../../../src/domain/playback/device-profiles.ts';
import { DeviceProfileService } from '../../../../src/services/playback/device-profile.service.ts';

const kodi = JSON.stringify({ ...getDeviceProfile('full'), id: 'kodi', name: 'Kodi' });

describe('DeviceProfileService: built-ins plus the user files handed to it', () => {
  it('adds a valid user profile and reports the bad ones without failing', () => {
    const devices = new DeviceProfileService([
      { name: 'kodi.json', text: kodi },
      { name: 'broken.json', text: '{"id":' },
      { name: 'wrong.json', text: '{"id":"x"}' },
      { name: 'huge.json', error: 'larger than 1048576 bytes' },
    ]);
    assert.equal(devices.resolve('kodi').name, 'Kodi');
    assert.deepEqual(devices.ids(), ['web', 'safari', 'tv', 'androidtv', 'roku', 'full', 'kodi']);
    assert.equal(devices.problems.length, 3);
    assert.match(devices.problems[0] ?? '', /^devices\/broken\.json: not valid JSON/);
    assert.match(devices.problems[1] ?? '', /^devices\/wrong\.json: /);
    assert.equal(devices.problems[2], 'devices/huge.json: not readable (larger than 1048576 bytes)');
  });

  it('reads <data dir>/devices/*.json through the storage adapter', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reelshelf-devices-'));
    try {
      mkdirSync(join(dataDir, 'devices'));
      writeFileSync(join(dataDir, 'devices', 'kodi.json'), kodi);
      writeFileSync(join(dataDir, 'devices', 'README.txt'), 'not a profile');
      const store = new DataStore(dataDir);
      const devices = new DeviceProfileService(store.readTextFilesSync('devices', '.json', 1024 * 1024));
      assert.equal(devices.resolve('kodi').id, 'kodi');
      assert.deepEqual(devices.problems, []);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('an unknown device is a 400 unknown_device naming the known ones', () => {
    assert.throws(
      () => new DeviceProfileService().resolve('kodi'),
      (err: Error & { code?: string; status?: number }) =>
        err.code === 'unknown_device' &&
        err.status === 400 &&
        /web, safari/.test(String(err.message + JSON.stringify(err))),
    );
  });
});
