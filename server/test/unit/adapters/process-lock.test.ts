import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { ProcessLock } from '../../../src/adapters/process-lock.ts';

const repo = new URL('../../../../', import.meta.url).pathname;

/** One lock-contender process (helpers/lock-contender.ts), answering one line per command. */
interface Contender {
  child: ChildProcess;
  pid: number;
  ask(line: string): Promise<string>;
}

function startContender(): Promise<Contender> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/test/helpers/lock-contender.ts'], {
    cwd: repo,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const { stdin, stdout } = child;
  if (stdin === null || stdout === null) throw new Error('no pipes to the contender');
  const waiting: ((line: string) => void)[] = [];
  const lines = createInterface({ input: stdout });
  lines.on('line', (line) => waiting.shift()?.(line));
  const contender: Contender = {
    child,
    pid: child.pid ?? 0,
    ask(line) {
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`contender exited (${child.exitCode})`));
        waiting.push(resolve);
        stdin.write(`${line}\n`);
      });
    },
  };
  // Ready once it answers (tsx compiles it first).
  return contender.ask('release').then(() => contender);
}

/** The pid of a process that has exited (and so is dead). */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

const ROUNDS = 150;

describe('data-dir lock (adapters/process-lock.ts)', () => {
  let dirs: string;
  let a: Contender;
  let b: Contender;
  let round = 0;
  const freshDir = () => mkdtempSync(join(dirs, `r${round++}-`));

  before(async () => {
    dirs = mkdtempSync(join(tmpdir(), 'reelshelf-lock-'));
    [a, b] = await Promise.all([startContender(), startContender()]);
  });
  after(() => {
    a?.child.stdin?.end();
    b?.child.stdin?.end();
    rmSync(dirs, { recursive: true, force: true });
  });

  /** Both contenders try the lock of `dir` at the same instant; returns the winners' pids. */
  async function race(dir: string): Promise<number[]> {
    const at = Date.now() + 30;
    const answers = await Promise.all([a.ask(`go ${at} ${dir}`), b.ask(`go ${at} ${dir}`)]);
    await Promise.all([a.ask('release'), b.ask('release')]);
    return answers.filter((line) => line.startsWith('won ')).map((line) => Number(line.split(' ')[1]));
  }

  it(`two processes starting together: exactly one wins, ${ROUNDS} times over`, async () => {
    const doubles: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const dir = freshDir();
      const at = Date.now() + 30;
      const answers = await Promise.all([a.ask(`go ${at} ${dir}`), b.ask(`go ${at} ${dir}`)]);
      const winners = answers.filter((line) => line.startsWith('won '));
      if (winners.length !== 1) doubles.push(i);
      else assert.equal(readFileSync(join(dir, 'reelshelf.pid'), 'utf8'), `${winners[0]?.split(' ')[1]}\n`);
      await Promise.all([a.ask('release'), b.ask('release')]);
      assert.equal(existsSync(join(dir, 'reelshelf.pid')), false, 'the winner removes its lock on release');
    }
    assert.deepEqual(doubles, [], `rounds where ${doubles.length} of ${ROUNDS} did not have one winner`);
  });

  it(`a lock whose process is dead: exactly one of two processes takes it over, ${ROUNDS} times over`, async () => {
    const dead = await deadPid();
    const doubles: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const dir = freshDir();
      writeFileSync(join(dir, 'reelshelf.pid'), `${dead}\n`);
      const winners = await race(dir);
      if (winners.length !== 1) doubles.push(i);
    }
    assert.deepEqual(doubles, [], `rounds where ${doubles.length} of ${ROUNDS} did not have one winner`);
  });

  it('a live holder keeps its lock; a stale one is taken over and then holds our pid', async () => {
    const dir = freshDir();
    const file = join(dir, 'reelshelf.pid');
    // A live process other than us: contender a.
    writeFileSync(file, `${a.pid}\n`);
    const lock = new ProcessLock(dir);
    assert.equal(lock.acquire(), false, 'a live holder wins');
    lock.release();
    assert.equal(readFileSync(file, 'utf8'), `${a.pid}\n`, 'a loser neither changes nor removes the file');

    writeFileSync(file, `${await deadPid()}\n`);
    assert.equal(lock.acquire(), true, 'a dead holder is taken over');
    assert.equal(readFileSync(file, 'utf8'), `${process.pid}\n`);
    assert.equal(new ProcessLock(dir).acquire(), false, 'a second lock in the same process loses');
    lock.release();
    assert.equal(existsSync(file), false);
  });

  it('our own pid left by a previous life, garbage, and an empty file: taken when old, kept when fresh', () => {
    const dir = freshDir();
    const file = join(dir, 'reelshelf.pid');
    const lock = new ProcessLock(dir);
    for (const leftover of [`${process.pid}\n`, 'not a pid\n']) {
      writeFileSync(file, leftover);
      assert.equal(lock.acquire(), true, JSON.stringify(leftover));
      lock.release();
    }
    // An empty file is a create whose pid is not written yet (kept), or a crash right after (taken).
    writeFileSync(file, '');
    assert.equal(lock.acquire(), false, 'a fresh empty file is a create in progress');
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    assert.equal(lock.acquire(), true, 'an old empty file is a crash between create and write');
    lock.release();
  });

  it('a takeover whose claimer died is still taken over', async () => {
    const dir = freshDir();
    const file = join(dir, 'reelshelf.pid');
    const dead = await deadPid();
    writeFileSync(file, `${dead}\n`);
    const { ino } = statSync(file);
    // A process claimed the takeover of this file and died before replacing it.
    writeFileSync(join(dir, `reelshelf.pid.claim-${ino}`), `${dead}\n`);
    const lock = new ProcessLock(dir);
    assert.equal(lock.acquire(), true);
    assert.equal(readFileSync(file, 'utf8'), `${process.pid}\n`);
    lock.release();
  });
});
