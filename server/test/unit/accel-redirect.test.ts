import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accelRedirectUri, normaliseAccelPrefix } from '../../src/domain/accel-redirect.ts';

describe('normaliseAccelPrefix', () => {
  const cases: [raw: string, expected: string | null][] = [
    ['/internal-media/', '/internal-media/'],
    ['/internal-media', '/internal-media/'],
    ['/a/b.c/', '/a/b.c/'],
    ['internal-media/', null],
    ['/', null],
    ['//x/', null],
    ['/x/../', null],
    ['/x/./', null],
    ['/with space/', null],
    ['/q?x/', null],
    ['/ünï/', null],
  ];
  for (const [raw, expected] of cases) {
    it(`${JSON.stringify(raw)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(normaliseAccelPrefix(raw), expected);
    });
  }
});

describe('accelRedirectUri', () => {
  const cases: [path: string, expected: string][] = [
    ['/srv/media/Film (2001)/Film (2001).mkv', '/internal-media/srv/media/Film%20(2001)/Film%20(2001).mkv'],
    ['/m/Amélie.mkv', '/internal-media/m/Am%C3%A9lie.mkv'],
    ['/m/100% Pure?#.mp4', '/internal-media/m/100%25%20Pure%3F%23.mp4'],
    ['/m/a+b;c=d&e.mkv', '/internal-media/m/a%2Bb%3Bc%3Dd%26e.mkv'],
    ['/m/..hidden/x.mkv', '/internal-media/m/..hidden/x.mkv'],
  ];
  for (const [path, expected] of cases) {
    it(`${path} → ${expected}`, () => {
      assert.equal(accelRedirectUri('/internal-media/', path), expected);
      assert.equal(decodeURIComponent(expected.slice('/internal-media'.length)), path);
    });
  }
  for (const bad of ['relative/x.mkv', '/m/../etc/passwd', '/m/./x', '/m//x', '/m/x/']) {
    it(`refuses ${bad}`, () => {
      assert.throws(() => accelRedirectUri('/internal-media/', bad));
    });
  }
});
