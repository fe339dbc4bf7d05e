/** The test helper that lists ffmpeg's encoders: a broken ffmpeg fails loudly, only a missing encoder skips. */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixtureEncoders, readEncoders, skipWithoutEncoders } from '../helpers/media.ts';

describe('listing the encoders of the fixture ffmpeg', () => {
  let dir: string;
  const script = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reelshelf-encoders-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const failures: [string, () => string, number, RegExp][] = [
    ['no such binary', () => join(dir, 'no-ffmpeg'), 5_000, /cannot list the encoders .*ENOENT/],
    [
      'it exits with an error',
      () => script('broken', 'echo "libfoo.so: cannot open" >&2; exit 127'),
      5_000,
      /cannot list the encoders .*libfoo\.so: cannot open/,
    ],
    ['it hangs', () => script('hangs', 'exec sleep 30'), 300, /did not answer within 0\.3 s/],
    [
      'it prints no encoder lines',
      () => script('silent', 'echo "Encoders:"'),
      5_000,
      /printed no encoder lines/,
    ],
  ];
  for (const [name, ffmpeg, timeoutMs, message] of failures) {
    it(`throws with the reason when ${name}`, () => {
      assert.throws(() => readEncoders(ffmpeg(), timeoutMs), message);
    });
  }

  it('a working ffmpeg lists its encoders; only an encoder it lacks is a skip', () => {
    assert.ok(fixtureEncoders().has('aac'), 'the native AAC encoder is in every ffmpeg');
    assert.equal(skipWithoutEncoders('aac'), false);
    assert.match(skipWithoutEncoders('aac', 'no_such_encoder') || '', /has no no_such_encoder$/);
  });
});
