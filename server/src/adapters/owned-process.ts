/**
 * Ties a child process's life to this one. A pipe alone does not: ffmpeg ignores SIGPIPE and carries
 * on past a failed `-progress pipe:1` write, so an ffmpeg writing its output to a FILE (artifact
 * builds, HLS segments, trickplay sheets) ran on after its server was killed with SIGKILL; and a
 * process stopped with SIGSTOP (a paused trickplay pass) writes nothing that could fail.
 *
 * `setpriv --pdeathsig KILL` (util-linux, on every Debian) sets PR_SET_PDEATHSIG and execs the tool in
 * the same process (same pid, same process group): when the process that spawned it dies, by any
 * signal, the kernel sends it SIGKILL, which also ends a stopped process. Node spawns from its main
 * thread, whose end is the process's end.
 */
import { execFileSync } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { findOnPath, isExecutableFile } from './media-tools.ts';

export interface OwnedCommand {
  command: string;
  args: string[];
}

let found: string | null | undefined;

/** setpriv on PATH when it knows `--pdeathsig` (util-linux 2.33+), looked up once. */
export function setprivPath(): string | null {
  if (found !== undefined) return found;
  const setpriv = findOnPath('setpriv', process.env.PATH);
  try {
    const help =
      setpriv === null ? '' : execFileSync(setpriv, ['--help'], { encoding: 'utf8', timeout: 5000 });
    found = help.includes('--pdeathsig') ? setpriv : null;
  } catch {
    found = null;
  }
  return found;
}

/**
 * The command that runs `path args` and dies with this process: `setpriv --pdeathsig KILL path …`.
 * Without setpriv, or for a tool that is not there (so spawn reports ENOENT for the tool itself, not
 * a setpriv exit code), the command as given.
 */
export function ownedCommand(
  path: string,
  args: string[],
  setpriv: string | null = setprivPath(),
): OwnedCommand {
  const runnable = isAbsolute(path) ? isExecutableFile(path) : findOnPath(path, process.env.PATH) !== null;
  if (setpriv === null || !runnable) return { command: path, args };
  return { command: setpriv, args: ['--pdeathsig', 'KILL', '--', path, ...args] };
}
