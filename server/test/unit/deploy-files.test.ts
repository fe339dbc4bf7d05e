// The deployment files of docs/deploy (compose.yaml, the Dockerfile, the systemd unit and the env
// examples) name only settings the server knows, with values it accepts: a renamed or misspelt
// variable in a deployment is silently ignored, so it must fail here instead.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';

const DEPLOY = new URL('../../../docs/deploy/', import.meta.url).pathname;

/** Every REELSHELF_ variable loadConfig reads: recorded by asking it to read an environment. */
function knownVariables(): Set<string> {
  const seen = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') seen.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  return new Set([...seen].filter((k) => k.startsWith('REELSHELF_')));
}

function deployFiles(dir = DEPLOY): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? deployFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** A placeholder a required compose variable (`${X:?…}`) stands for, valid where it is used. */
function resolveCompose(value: string): string {
  return value
    .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')
    .replace(/\$\{REELSHELF_API_TOKEN:\?[^}]*\}/g, 'a-token-of-thirty-two-characters')
    .replace(/\$\{[A-Z_]+:\?[^}]*\}/g, 'secret');
}

/** `REELSHELF_X: value`, `REELSHELF_X=value` and `ENV … REELSHELF_X=value` assignments of a file. */
function assignments(text: string): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const m of text.matchAll(
    /\b(REELSHELF_[A-Z0-9_]+)\s*[:=]\s*(?:"([^"]*)"|'([^']*)'|([^\s#\\`),]*))/g,
  )) {
    const name = m[1] ?? '';
    const value = resolveCompose(m[2] ?? m[3] ?? m[4] ?? '');
    out.push({ name, value });
  }
  return out;
}

describe('docs/deploy', () => {
  const known = knownVariables();
  const files = deployFiles();

  it('has the compose file, the Dockerfile and the systemd unit', () => {
    const names = files.map((f) => relative(DEPLOY, f));
    for (const wanted of ['Dockerfile', 'reelshelf.service', join('compose', 'compose.yaml')])
      assert.ok(names.includes(wanted), `docs/deploy/${wanted}`);
    assert.ok(known.has('REELSHELF_DATABASE_URL') && known.has('REELSHELF_PORT'), [...known].join(' '));
  });

  it('names only variables the server reads', () => {
    const unknown: string[] = [];
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bREELSHELF_[A-Z0-9_]+\b/g)) {
        if (!known.has(m[0])) unknown.push(`${relative(DEPLOY, file)}: ${m[0]}`);
      }
    }
    assert.deepEqual(unknown, [], `known: ${[...known].sort().join(' ')}`);
  });

  it('gives every variable a value the server accepts', () => {
    const refused: string[] = [];
    for (const file of files) {
      for (const { name, value } of assignments(readFileSync(file, 'utf8'))) {
        try {
          loadConfig({ REELSHELF_DATA_DIR: '/tmp/reelshelf-deploy-check', [name]: value });
        } catch (error) {
          refused.push(`${relative(DEPLOY, file)}: ${name}=${value}: ${(error as Error).message}`);
        }
      }
    }
    assert.deepEqual(refused, []);
  });
});
