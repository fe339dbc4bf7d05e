import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixtureFfmpeg } from '../helpers/media.ts';
import { alive } from '../helpers/process-alive.ts';

/**
 * ffmpeg ignores SIGPIPE, so an ffmpeg whose output is a file (an artifact build, HLS segments) and
 * whose only pipe is `-progress pipe:1` ran on after its server was killed with SIGKILL, and a stopped
 * one (a paused trickplay pass) writes nothing that could fail. Both now die with their owner
 * (adapters/owned-process.ts).
 */
describe('an ffmpeg writing to a file dies with its owner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reelshelf-ffmpeg-owner-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const stopped of [false, true]) {
    it(`owner killed with SIGKILL while ffmpeg ${stopped ? 'is stopped (SIGSTOP)' : 'runs'}: ffmpeg exits`, async () => {
      const owner = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(import.meta.dirname, '../helpers/ffmpeg-owner.ts'),
          fixtureFfmpeg,
          join(dir, `out-${String(stopped)}.mpg`),
          stopped ? 'stop' : '',
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let pid = 0;
      try {
        pid = await new Promise<number>((resolve, reject) => {
          owner.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
          owner.once('exit', () => reject(new Error('the owner exited before starting ffmpeg')));
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(alive(pid), true, 'ffmpeg runs while its owner lives');
        owner.kill('SIGKILL');
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline && alive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(alive(pid), false, 'ffmpeg exited once its owner was gone');
      } finally {
        owner.kill('SIGKILL');
        if (pid !== 0 && alive(pid)) process.kill(pid, 'SIGKILL');
      }
    });
  }
});
