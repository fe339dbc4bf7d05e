import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { ERROR_CATALOGUE } from '../../src/errors.ts';

const repo = new URL('../../../', import.meta.url).pathname;
const src = join(repo, 'server/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return sourceFiles(full);
      return name.endsWith('.ts') ? [full] : [];
    });
}

interface Found {
  code: string;
  where: string;
}

/**
 * Every error code server/src sends: the literal first argument of each `new AppError(…)` and each
 * hand-built ApiError body (`{ error: '…' }`). A code passed in a variable (the error handler's map
 * of Fastify's errors) is held to the catalogue by the constructor's type, `CatalogueCode`, which
 * `tsc` checks; `dynamic` lists where, so a new one is seen.
 */
function thrownCodes(): { found: Found[]; dynamic: string[]; unreadable: string[] } {
  const found: Found[] = [];
  const dynamic: string[] = [];
  const unreadable: string[] = [];
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${relative(repo, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'AppError') {
        const first = node.arguments?.[0];
        if (first !== undefined && ts.isStringLiteralLike(first))
          found.push({ code: first.text, where: where(first) });
        else if (first !== undefined) dynamic.push(where(first));
        else unreadable.push(`${where(node)}: new AppError() without a code`);
      }
      if (
        ts.isPropertyAssignment(node) &&
        node.name.getText(source) === 'error' &&
        ts.isStringLiteralLike(node.initializer) &&
        /^[a-z]+(_[a-z]+)+$/.test(node.initializer.text)
      ) {
        found.push({ code: node.initializer.text, where: where(node) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { found, dynamic, unreadable };
}

/** The codes of docs/api.md's "## Errors" table (`| \`code\` | status | when |`). */
function documentedCodes(): Map<string, number> {
  const doc = readFileSync(join(repo, 'docs/api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Errors'), doc.indexOf('\n## ', doc.indexOf('## Errors') + 1));
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm))
    rows.set(match[1] ?? '', Number(match[2]));
  return rows;
}

describe('the error catalogue (server/src/errors.ts) and docs/api.md', () => {
  const { found, dynamic, unreadable } = thrownCodes();
  const catalogue = new Set(Object.keys(ERROR_CATALOGUE));
  const documented = documentedCodes();

  it('the scan finds the codes server/src sends (and can read each)', () => {
    assert.deepEqual(unreadable, []);
    // Codes in variables: typed CatalogueCode (checked by tsc), the only ones the scan cannot read.
    assert.deepEqual(
      dynamic.map((where) => where.replace(/:\d+$/, '')),
      ['server/src/http/plugins/error-handler.ts'],
    );
    assert.ok(new Set(found.map((f) => f.code)).size >= 30, `only ${found.length} codes found`);
  });

  it('every code sent is in the catalogue', () => {
    const missing = found.filter((f) => !catalogue.has(f.code)).map((f) => `${f.code} (${f.where})`);
    assert.deepEqual(missing, [], 'add these to ERROR_CATALOGUE in server/src/errors.ts');
  });

  it("every catalogue code is in docs/api.md's error table with the catalogue's status, and nothing else is", () => {
    const undocumented = [...catalogue].filter((code) => !documented.has(code));
    assert.deepEqual(undocumented, [], "add these to docs/api.md's Errors table");
    const sent = new Set(found.map((f) => f.code));
    const notSent = [...documented.keys()].filter((code) => !catalogue.has(code) && !sent.has(code));
    assert.deepEqual(notSent, [], 'docs/api.md lists codes the server never sends');
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      assert.equal(documented.get(code), entry.status, `${code}: the status in docs/api.md`);
    }
  });
});
