import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { progressBar, progressText, startCliProgress } from '../../../src/cli/progress.ts';

describe('progressText', () => {
  const cases: [number, number, number | null, string][] = [
    [0, 100, null, 'scanning: 0/100 files (0%)'],
    [40, 100, 65, 'scanning: 40/100 files (40%), 1 min left'],
    [40, 100, 8.2, 'scanning: 40/100 files (40%), 8 s left'],
    [40, 100, 7300, 'scanning: 40/100 files (40%), 2 h 2 min left'],
    // No estimate before anything is done, after everything is, or when it is not a number.
    [0, 100, 30, 'scanning: 0/100 files (0%)'],
    [100, 100, 0, 'scanning: 100/100 files (100%)'],
    [50, 100, null, 'scanning: 50/100 files (50%)'],
    [1, 3, 2, 'scanning: 1/3 files (33%), 2 s left'],
    [0, 0, null, 'scanning: 0/0 files (0%)'],
    [120, 100, null, 'scanning: 120/100 files (100%)'],
  ];
  for (const [done, total, eta, expected] of cases) {
    it(`${done}/${total}, eta ${eta} → ${expected}`, () =>
      assert.equal(progressText('scanning', 'files', done, total, eta), expected));
  }
});

describe('progressBar', () => {
  const cases: [number, number, string][] = [
    [0, 4, '░░░░'],
    [0.5, 4, '██░░'],
    [1, 4, '████'],
    [1.5, 4, '████'],
    [-1, 4, '░░░░'],
  ];
  for (const [fraction, width, expected] of cases) {
    it(`${fraction} → ${expected}`, () => assert.equal(progressBar(fraction, width), expected));
  }
});

/** A stream that records what is written; `isTTY` says what it pretends to be. */
function sink(isTTY: boolean): Writable & { isTTY: boolean; columns: number; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { isTTY, columns: 100, text: () => chunks.join('') });
}

describe('startCliProgress', () => {
  it('not on a TTY: plain lines, no bar and no control characters, first and last', () => {
    const err = sink(false);
    const out = sink(false);
    const progress = startCliProgress({
      label: 'importing',
      unit: 'writes',
      stream: err,
      out,
      plainEveryMs: 0,
      now: () => 0,
    });
    progress.update(0, 0); // no total yet: nothing shown
    progress.update(0, 2000);
    progress.update(500, 2000);
    progress.log('a line of output');
    progress.update(2000, 2000);
    progress.stop();
    progress.stop();
    progress.update(2000, 2000);
    assert.deepEqual(err.text().split('\n'), [
      'importing: 0/2000 writes (0%)',
      'importing: 500/2000 writes (25%)',
      'importing: 2000/2000 writes (100%)',
      '',
    ]);
    assert.equal(out.text(), 'a line of output\n');
  });

  it('not on a TTY: at most one line per interval, the last count always', () => {
    const err = sink(false);
    const progress = startCliProgress({ label: 'scanning', unit: 'files', stream: err, out: sink(false) });
    for (let done = 0; done <= 50; done++) progress.update(done, 50);
    progress.stop();
    assert.equal(err.text(), 'scanning: 0/50 files (0%)\nscanning: 50/50 files (100%)\n');
  });

  it('not on a TTY: a job complete at its first report is one line', () => {
    const err = sink(false);
    const progress = startCliProgress({ label: 'importing', unit: 'writes', stream: err, out: sink(false) });
    progress.update(13, 13);
    progress.stop();
    assert.equal(err.text(), 'importing: 13/13 writes (100%)\n');
  });

  it('not on a TTY: the time left, once the job has run a second', () => {
    const err = sink(false);
    let clock = 0;
    const progress = startCliProgress({
      label: 'scanning',
      unit: 'files',
      stream: err,
      out: sink(false),
      plainEveryMs: 0,
      now: () => clock,
    });
    progress.update(0, 100);
    clock = 500;
    progress.update(10, 100); // half a second in: too early to tell
    clock = 20_000;
    progress.update(40, 100); // 40 files in 20 s: 60 more take 30 s
    progress.stop();
    assert.equal(
      err.text(),
      'scanning: 0/100 files (0%)\nscanning: 10/100 files (10%)\nscanning: 40/100 files (40%), 30 s left\n',
    );
  });

  it('nothing at all when no total ever came', () => {
    const err = sink(false);
    const progress = startCliProgress({ label: 'scanning', unit: 'files', stream: err, out: sink(false) });
    progress.update(0, 0);
    progress.stop();
    assert.equal(err.text(), '');
  });

  it('on a TTY: one line redrawn in place with a bar; log lines clear it first', () => {
    const err = sink(true);
    const out = sink(true);
    const progress = startCliProgress({ label: 'scanning', unit: 'files', stream: err, out });
    progress.update(0, 4);
    progress.log('✓ one');
    progress.update(4, 4);
    progress.stop();
    const text = err.text();
    assert.match(text, /\u001b\[/, 'cursor control');
    assert.match(text, /░{24} scanning: 0\/4 files \(0%\)/);
    assert.match(text, /█{24} scanning: 4\/4 files \(100%\)/);
    assert.match(text, /\r\u001b\[2K/, 'the bar is cleared before a log line');
    assert.equal(out.text(), '✓ one\n');
  });
});
