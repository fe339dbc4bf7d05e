import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';

// The walls of docs/architecture.md, checked on every run: no import cycle in server/src and the
// layer rules of .dependency-cruiser.cjs (the ESLint rule against node:fs in services and domain runs
// with the lint step).
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const config = createRequire(import.meta.url)(join(repoRoot, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(baseDir: string): Promise<string[]> {
  // baseDir: the paths given (and reported) are relative to it, not to the process's cwd (which a
  // test must not change: other tests of the same process resolve paths against it).
  const result = await cruise(['server/src'], {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

const scratch = mkdtempSync(join(tmpdir(), 'reelshelf-architecture-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('architecture (dependency-cruiser over server/src)', () => {
  it('has no import cycle and no import against the layers', async () => {
    assert.deepEqual(await violations(repoRoot), []);
  });

  it('the rules bite: a cycle, a domain file importing a service, a service on node:fs, a route on the database or the job runner, http on node:fs', async () => {
    const files: Record<string, string> = {
      'server/src/domain/rule.ts':
        "import { run } from '../services/use-case.ts';\nexport const rule = () => run;\n",
      'server/src/services/use-case.ts':
        "import { readFileSync } from 'node:fs';\nimport { rule } from '../domain/rule.ts';\nexport const run = () => [rule, readFileSync];\n",
      'server/src/repositories/store.ts':
        "import { run } from '../services/use-case.ts';\nexport const store = run;\n",
      'server/src/http/route.ts': "import { db } from '../db/database.ts';\nexport const route = db;\n",
      'server/src/db/database.ts': 'export const db = 1;\n',
      'server/src/http/jobs.route.ts':
        "import { runner } from '../jobs/runner.ts';\nexport const route = runner;\n",
      'server/src/jobs/runner.ts': 'export const runner = 1;\n',
      'server/src/http/bytes.ts': "import { open } from 'node:fs/promises';\nexport const send = open;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const found = await violations(scratch);
    for (const rule of [
      'no-circular',
      'domain-stays-pure',
      'infrastructure-below-services',
      'routes-through-services',
      'no-fs-or-process-in-rules',
      'http-serves-checked-files',
    ]) {
      assert.ok(
        found.some((v) => v.startsWith(`${rule}:`)),
        `${rule} not reported; found ${found.join('; ')}`,
      );
    }
    assert.ok(
      found.includes('routes-through-services: server/src/http/jobs.route.ts -> server/src/jobs/runner.ts'),
      `a route on the job runner not reported; found ${found.join('; ')}`,
    );
  });
});
