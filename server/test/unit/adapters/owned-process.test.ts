import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ownedCommand } from '../../../src/adapters/owned-process.ts';

describe('ownedCommand: a child that dies with this process', () => {
  const cases: { name: string; path: string; setpriv: string | null; command: string; prefixed: boolean }[] =
    [
      {
        name: 'a tool that is there, with setpriv',
        path: process.execPath,
        setpriv: '/usr/bin/setpriv',
        command: '/usr/bin/setpriv',
        prefixed: true,
      },
      {
        name: 'a tool found on PATH by name',
        path: 'sh',
        setpriv: '/usr/bin/setpriv',
        command: '/usr/bin/setpriv',
        prefixed: true,
      },
      {
        name: 'no setpriv on this machine',
        path: process.execPath,
        setpriv: null,
        command: process.execPath,
        prefixed: false,
      },
      // spawn must report ENOENT for the tool itself ("ffmpeg is not installed"), not a setpriv exit code
      {
        name: 'a tool that is not there',
        path: '/nonexistent/ffmpeg',
        setpriv: '/usr/bin/setpriv',
        command: '/nonexistent/ffmpeg',
        prefixed: false,
      },
      {
        name: 'a name on no PATH folder',
        path: 'no-such-tool-here',
        setpriv: '/usr/bin/setpriv',
        command: 'no-such-tool-here',
        prefixed: false,
      },
    ];
  for (const c of cases) {
    it(c.name, () => {
      const owned = ownedCommand(c.path, ['-i', 'x'], c.setpriv);
      assert.equal(owned.command, c.command);
      assert.deepEqual(
        owned.args,
        c.prefixed ? ['--pdeathsig', 'KILL', '--', c.path, '-i', 'x'] : ['-i', 'x'],
      );
    });
  }
});
