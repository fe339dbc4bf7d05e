import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import ts from 'typescript';

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
      // A capability against the declared direction, one that builds its repository, one outside the folders.
      'server/src/services/library/shelf.service.ts':
        "import { importer } from '../import/importer.ts';\nexport const shelf = importer;\n",
      'server/src/services/import/importer.ts':
        "import { Repo } from '../../repositories/repo.ts';\nexport const importer = () => new Repo();\n",
      'server/src/services/scan/typed.ts':
        "import type { Repo } from '../../repositories/repo.ts';\nexport const typed = (r: Repo) => r;\n",
      'server/src/repositories/repo.ts': 'export class Repo {}\n',
      'server/src/services/loose.service.ts':
        "import { shelf } from './library/shelf.service.ts';\nexport const loose = shelf;\n",
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
      'capability-direction-library',
      'services-get-repositories',
      'services-not-in-folders',
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
    assert.ok(
      !found.some((v) => v.startsWith('services-get-repositories: server/src/services/scan/typed.ts')),
      `a type-only import of a repository (a service handed it) reported; found ${found.join('; ')}`,
    );
  });
});

/** Files over this many lines, and classes over that many, are split along their seams. */
const MAX_FILE_LINES = 500;
const MAX_CLASS_LINES = 400;

/** Every .ts file under `root/folder`, as paths relative to `root`. */
function sources(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

/** Files and classes of `folder` above the bounds, as `path: n lines` / `path: class X: n lines`. */
function oversized(root: string, folder: string): string[] {
  const out: string[] = [];
  for (const path of sources(root, folder)) {
    const text = readFileSync(join(root, path), 'utf8');
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const lines = file.getLineStarts().length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) out.push(`${path}: ${lines} lines`);
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
        const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
        const span = last - first + 1;
        if (span > MAX_CLASS_LINES)
          out.push(`${path}: class ${node.name?.text ?? '(anonymous)'}: ${span} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return out;
}

describe('services stay in rooms of a readable size', () => {
  it(`no file in server/src/services over ${MAX_FILE_LINES} lines, no class over ${MAX_CLASS_LINES}`, () => {
    assert.deepEqual(oversized(repoRoot, 'server/src/services'), []);
  });

  it('the measure bites: a long file and a long class are reported', () => {
    const folder = 'server/src/services/oversized';
    mkdirSync(join(scratch, folder), { recursive: true });
    const body = Array.from({ length: MAX_CLASS_LINES }, (_, i) => `  m${i}(): number { return ${i}; }`);
    writeFileSync(join(scratch, folder, 'big.ts'), `export class Big {\n${body.join('\n')}\n}\n`);
    const filler = Array.from({ length: MAX_FILE_LINES + 1 }, (_, i) => `export const c${i} = ${i};`);
    writeFileSync(join(scratch, folder, 'long.ts'), `${filler.join('\n')}\n`);
    assert.deepEqual(oversized(scratch, folder), [
      `${folder}/big.ts: class Big: ${MAX_CLASS_LINES + 2} lines`,
      `${folder}/long.ts: ${MAX_FILE_LINES + 1} lines`,
    ]);
  });
});
