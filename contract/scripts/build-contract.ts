// Builds the contract artifacts from contract/schemas/*.schema.json and the version in contract/package.json:
//   contract/contract.bundle.json, contract/src/generated/types.ts, contract/src/generated/version.ts and the
//   contract/versions.json entry (append-only map version -> hash, the version bump guard).
//
//   node --import tsx contract/scripts/build-contract.ts            build and write
//   node --import tsx contract/scripts/build-contract.ts --check    regenerate in memory, compare, never write
//   node --import tsx contract/scripts/build-contract.ts --bump X   rewrite package.json version and $ids to X, then build
//
// The pure parts are exported so tests can run them on in-memory copies; the CLI only runs when executed directly.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compile } from 'json-schema-to-typescript';
import { computeHash } from '../src/hash.ts';
import {
  CONTRACT_ROUTES,
  type ContractBundle,
  isSchemaName,
  type JsonObject,
  type JsonValue,
  SCHEMA_ID_BASE,
  SCHEMA_NAMES,
  type SchemaName,
  schemaIdFor,
  TYPE_NAMES,
} from '../src/names.ts';

export { computeHash };

/** Every schema by name. */
export type SchemaMap = Record<SchemaName, JsonObject>;

/** Map version -> bundle hash, as stored in contract/versions.json. */
export type VersionsMap = Record<string, string>;

/** An error with a message meant for the person running the build. */
export class ContractError extends Error {
  override name = 'ContractError';
}

/** The contract folder this script belongs to. */
export const DEFAULT_CONTRACT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Paths (relative to the contract folder) of the generated artifacts. */
export const ARTIFACTS = {
  bundle: 'contract.bundle.json',
  types: 'src/generated/types.ts',
  version: 'src/generated/version.ts',
  versions: 'versions.json',
} as const;

const JSON_SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';
const VERSION_RE = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
const HASH_RE = /^[0-9a-f]{64}$/;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string, what: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new ContractError(`${what}: invalid JSON (${(err as Error).message})`);
  }
}

/** Reads the contract version from `<contractDir>/package.json`. */
export function readContractVersion(contractDir: string): string {
  const pkg = parseJson(readFileSync(join(contractDir, 'package.json'), 'utf8'), 'contract/package.json');
  const version = isObject(pkg) ? pkg.version : undefined;
  if (typeof version !== 'string' || !VERSION_RE.test(version)) {
    throw new ContractError(
      `contract/package.json: "version" must be a semver string, got ${JSON.stringify(version)}`,
    );
  }
  return version;
}

/** Reads `<dir>/<name>.schema.json` for exactly the ten contract schema names. */
export function readSchemaDir(dir: string): SchemaMap {
  const files = readdirSync(dir).filter((f) => f.endsWith('.schema.json'));
  const problems: string[] = [];
  for (const f of files) {
    const name = f.slice(0, -'.schema.json'.length);
    if (!isSchemaName(name))
      problems.push(`unexpected schema file contract/schemas/${f} (not a contract schema name)`);
  }
  const out: Partial<SchemaMap> = {};
  for (const name of SCHEMA_NAMES) {
    const file = join(dir, `${name}.schema.json`);
    if (!existsSync(file)) {
      problems.push(`missing schema file contract/schemas/${name}.schema.json`);
      continue;
    }
    const schema = parseJson(readFileSync(file, 'utf8'), `contract/schemas/${name}.schema.json`);
    if (!isObject(schema)) problems.push(`contract/schemas/${name}.schema.json: not a JSON object`);
    else out[name] = schema;
  }
  if (problems.length > 0) throw new ContractError(problems.join('\n'));
  return out as SchemaMap;
}

function collectRefs(value: JsonValue, out: string[]): string[] {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, out);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

/** Checks `$schema`, `$id` (must match `version`), `title`, `description` and that every `$ref` names a sibling schema's `$id`. */
export function checkSchemaIds(schemas: SchemaMap, version: string): string[] {
  const problems: string[] = [];
  const ids = new Set(SCHEMA_NAMES.map((n) => schemaIdFor(n, version)));
  for (const name of SCHEMA_NAMES) {
    const s = schemas[name];
    const where = `contract/schemas/${name}.schema.json`;
    if (s.$schema !== JSON_SCHEMA_2020) problems.push(`${where}: "$schema" must be "${JSON_SCHEMA_2020}"`);
    const expected = schemaIdFor(name, version);
    if (s.$id !== expected) {
      problems.push(
        `${where}: "$id" is ${JSON.stringify(s.$id)} but the contract version is ${version}: expected "${expected}"`,
      );
    }
    if (typeof s.title !== 'string' || s.title === '') problems.push(`${where}: missing "title"`);
    if (typeof s.description !== 'string' || s.description === '')
      problems.push(`${where}: missing "description"`);
    for (const ref of collectRefs(s, [])) {
      if (!ids.has(ref)) {
        problems.push(
          `${where}: "$ref" ${JSON.stringify(ref)} is not the $id of a contract schema at version ${version}`,
        );
      }
    }
  }
  return problems;
}

/** Compiles every schema in strict Ajv 2020; returns one message per failure (empty when all compile). */
export function compileSchemas(schemas: SchemaMap): string[] {
  const problems: string[] = [];
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  const added: SchemaName[] = [];
  for (const name of SCHEMA_NAMES) {
    try {
      ajv.addSchema(schemas[name]);
      added.push(name);
    } catch (err) {
      problems.push(
        `contract/schemas/${name}.schema.json does not compile (Ajv 2020, strict): ${(err as Error).message}`,
      );
    }
  }
  if (problems.length > 0) return problems;
  for (const name of added) {
    try {
      ajv.compile(schemas[name]);
    } catch (err) {
      problems.push(
        `contract/schemas/${name}.schema.json does not compile (Ajv 2020, strict): ${(err as Error).message}`,
      );
    }
  }
  return problems;
}

/** Validates the schemas (ids and Ajv compilation); throws a ContractError listing every problem. */
export function assertSchemasValid(schemas: SchemaMap, version: string): void {
  const idProblems = checkSchemaIds(schemas, version);
  const problems = idProblems.length > 0 ? idProblems : compileSchemas(schemas);
  if (problems.length > 0) throw new ContractError(`invalid contract schemas:\n  ${problems.join('\n  ')}`);
}

/** Builds the bundle object (with its hash) from the schemas and the version. */
export function buildBundle(schemas: SchemaMap, version: string): ContractBundle {
  const ordered = {} as SchemaMap;
  for (const name of SCHEMA_NAMES) ordered[name] = structuredClone(schemas[name]);
  const withoutHash = { version, schemas: ordered, routes: { ...CONTRACT_ROUTES } };
  return { version, hash: computeHash(withoutHash), schemas: ordered, routes: withoutHash.routes };
}

/** A deep copy of `value` with object keys sorted (UTF-16 code unit order, as JCS). */
export function sortKeysDeep(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep(value[key] as JsonValue);
    return out;
  }
  return value;
}

/** The exact bytes of contract.bundle.json: keys sorted recursively, two-space indent, LF, final newline. */
export function renderBundleJson(bundle: ContractBundle): string {
  return `${JSON.stringify(sortKeysDeep(bundle as unknown as JsonObject), null, 2)}\n`;
}

/** Replaces each `{"$ref": "<id of other>"}` by `{"tsType": "<OtherType>"}` (siblings kept) so nothing is fetched. */
export function refsToTsTypes(value: JsonValue, version: string): JsonValue {
  if (Array.isArray(value)) return value.map((v) => refsToTsTypes(v, version));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string') {
      const name = SCHEMA_NAMES.find((n) => schemaIdFor(n, version) === v);
      if (name === undefined) throw new ContractError(`unresolvable $ref ${v}`);
      out.tsType = TYPE_NAMES[name];
    } else out[key] = refsToTsTypes(v, version);
  }
  return out;
}

const TYPES_HEADER = `// GENERATED by contract/scripts/build-contract.ts — do not edit.
// Source: contract/schemas/*.schema.json. Regenerate with \`npm run contract:build\`.
`;

function enumOf(value: JsonValue | undefined): string[] {
  if (!isObject(value) || !Array.isArray(value.enum)) throw new ContractError('expected an enum schema');
  return value.enum.map(String);
}

function objectAt(value: JsonValue | undefined, ...path: string[]): JsonObject {
  let cur = value;
  for (const key of path) cur = isObject(cur) ? cur[key] : undefined;
  if (!isObject(cur)) throw new ContractError(`expected an object at ${path.join('.')}`);
  return cur;
}

function renderDerived(schemas: SchemaMap): string {
  const prewarmShapes = schemas.prewarm.oneOf;
  if (!Array.isArray(prewarmShapes)) throw new ContractError('prewarm: expected a oneOf');
  const prewarmStatuses = prewarmShapes.map((shape) => String(objectAt(shape, 'properties', 'status').const));
  const list = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
  const lines = [
    '/** Badge of a library movie item. */',
    'export type Badge = LibraryMovieItem["badge"];',
    '/** Kind of an incompatibility. */',
    'export type IncompatibilityType = Incompatibility["type"];',
    '/** Status of a prewarm response. */',
    'export type PrewarmStatus = PrewarmResponse["status"];',
    '',
    '/** Every Badge value, in schema order. */',
    `export const BADGE_VALUES = ${list(enumOf(objectAt(schemas.libraryMovieItem, 'properties', 'badge')))} as const satisfies readonly Badge[];`,
    '/** Every IncompatibilityType value, in schema order. */',
    `export const INCOMPATIBILITY_TYPES = ${list(enumOf(objectAt(schemas.incompatibility, 'properties', 'type')))} as const satisfies readonly IncompatibilityType[];`,
    '/** Every PlaybackPrediction value, in schema order. */',
    `export const PLAYBACK_PREDICTIONS = ${list(enumOf(schemas.playbackPrediction))} as const satisfies readonly PlaybackPrediction[];`,
    '/** Every PlaybackStatusCode value, in schema order. */',
    `export const PLAYBACK_STATUS_CODES = ${list(enumOf(schemas.playbackStatusCode))} as const satisfies readonly PlaybackStatusCode[];`,
    '/** Every PrewarmStatus value, in schema order. */',
    `export const PREWARM_STATUSES = ${list(prewarmStatuses)} as const satisfies readonly PrewarmStatus[];`,
    '',
    '/** Schema name -> TypeScript type of a value valid against it. */',
    'export interface ContractSchemaTypes {',
    ...SCHEMA_NAMES.map((n) => `  ${n}: ${TYPE_NAMES[n]};`),
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/** Generates contract/src/generated/types.ts (deterministic: one compile per schema, sorted by name). */
export async function generateTypes(schemas: SchemaMap, version: string): Promise<string> {
  const parts: string[] = [];
  for (const name of [...SCHEMA_NAMES].sort()) {
    const prepared = refsToTsTypes(structuredClone(schemas[name]), version) as JsonObject;
    delete prepared.$schema;
    delete prepared.$id;
    prepared.title = TYPE_NAMES[name];
    const ts = await compile(prepared as Parameters<typeof compile>[0], TYPE_NAMES[name], {
      bannerComment: '',
      declareExternallyReferenced: false,
      // Objects without an explicit additionalProperties are free-form (capabilities).
      additionalProperties: true,
      unknownAny: true,
      strictIndexSignatures: true,
      format: true,
      $refOptions: { resolve: { http: false, external: false } },
    });
    parts.push(`// ${name} (contract/schemas/${name}.schema.json)\n${ts.trim()}\n`);
  }
  parts.push(renderDerived(schemas));
  return `${TYPES_HEADER}\n${parts.join('\n')}`;
}

/** The exact text of contract/src/generated/version.ts. */
export function renderVersionTs(version: string, hash: string): string {
  return `// GENERATED by contract/scripts/build-contract.ts — do not edit.
/** Contract version (contract/package.json), embedded at build time. */
export const CONTRACT_VERSION = '${version}';
/** SHA-256 of the canonical contract bundle, embedded at build time. */
export const CONTRACT_HASH = '${hash}';
`;
}

/** Outcome of the version bump guard. */
export type VersionGuardResult =
  { ok: true; versions: VersionsMap; added: boolean } | { ok: false; error: string; versions: VersionsMap };

/** Version bump guard: a known version must keep its hash; a new version is appended (input never mutated). */
export function checkVersionGuard(versions: VersionsMap, version: string, hash: string): VersionGuardResult {
  const known = versions[version];
  if (known === undefined) return { ok: true, versions: { ...versions, [version]: hash }, added: true };
  if (known === hash) return { ok: true, versions, added: false };
  return {
    ok: false,
    versions,
    error:
      `schemas changed without a version bump: bump contract/package.json version (and the $ids)\n` +
      `  version ${version} was recorded in contract/versions.json with hash ${known}, the schemas now hash to ${hash}`,
  };
}

/** Parses contract/versions.json text (absent file = empty map). */
export function parseVersions(text: string | undefined): VersionsMap {
  if (text === undefined) return {};
  const parsed = parseJson(text, 'contract/versions.json');
  if (!isObject(parsed))
    throw new ContractError('contract/versions.json: expected an object version -> hash');
  const out: VersionsMap = {};
  for (const [version, hash] of Object.entries(parsed)) {
    if (typeof hash !== 'string' || !HASH_RE.test(hash)) {
      throw new ContractError(`contract/versions.json: entry ${version} is not a 64-hex hash`);
    }
    out[version] = hash;
  }
  return out;
}

/** The exact text of contract/versions.json (insertion order kept: the map is append-only). */
export function renderVersionsJson(versions: VersionsMap): string {
  return `${JSON.stringify(versions, null, 2)}\n`;
}

/** Everything a build produces, in memory. */
export interface ContractArtifacts {
  version: string;
  hash: string;
  bundle: ContractBundle;
  /** Generated file contents keyed by path relative to the contract folder (bundle, types, version). */
  files: Record<string, string>;
}

/** Generates every artifact from the given schemas and version (pure apart from the Ajv/TS compilers). */
export async function generateArtifacts(schemas: SchemaMap, version: string): Promise<ContractArtifacts> {
  assertSchemasValid(schemas, version);
  const bundle = buildBundle(schemas, version);
  return {
    version,
    hash: bundle.hash,
    bundle,
    files: {
      [ARTIFACTS.bundle]: renderBundleJson(bundle),
      [ARTIFACTS.types]: await generateTypes(schemas, version),
      [ARTIFACTS.version]: renderVersionTs(version, bundle.hash),
    },
  };
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Generates the artifacts of a contract folder from its schemas and package.json (reads only). */
export async function generateFromDir(contractDir: string): Promise<ContractArtifacts> {
  const version = readContractVersion(contractDir);
  return generateArtifacts(readSchemaDir(join(contractDir, 'schemas')), version);
}

/** Builds and writes the artifacts of a contract folder; throws a ContractError when the guard fails. */
export async function buildContract(
  contractDir: string,
): Promise<{ artifacts: ContractArtifacts; written: string[] }> {
  const artifacts = await generateFromDir(contractDir);
  const versionsFile = join(contractDir, ARTIFACTS.versions);
  const guard = checkVersionGuard(
    parseVersions(readIfExists(versionsFile)),
    artifacts.version,
    artifacts.hash,
  );
  if (!guard.ok) throw new ContractError(guard.error);
  const files: Record<string, string> = {
    ...artifacts.files,
    [ARTIFACTS.versions]: renderVersionsJson(guard.versions),
  };
  const written: string[] = [];
  for (const [rel, content] of Object.entries(files)) {
    const file = join(contractDir, rel);
    if (readIfExists(file) === content) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    written.push(rel);
  }
  return { artifacts, written };
}

/** Result of `--check`. */
export interface CheckResult {
  ok: boolean;
  /** Paths (relative to the contract folder) whose committed content differs from the regenerated one. */
  stale: string[];
  /** Other problems (hash does not verify, guard failure). */
  problems: string[];
}

/** Regenerates in memory and compares with the committed files of a contract folder; never writes. */
export async function checkContract(contractDir: string): Promise<CheckResult> {
  const artifacts = await generateFromDir(contractDir);
  const stale: string[] = [];
  const problems: string[] = [];
  for (const [rel, content] of Object.entries(artifacts.files)) {
    if (readIfExists(join(contractDir, rel)) !== content) stale.push(rel);
  }
  const committedBundle = readIfExists(join(contractDir, ARTIFACTS.bundle));
  if (committedBundle !== undefined) {
    try {
      const parsed = JSON.parse(committedBundle) as ContractBundle;
      if (computeHash(parsed) !== parsed.hash) {
        problems.push(`${ARTIFACTS.bundle}: its "hash" does not match the SHA-256 of its canonical form`);
      }
    } catch (err) {
      problems.push(`${ARTIFACTS.bundle}: invalid JSON (${(err as Error).message})`);
    }
  }
  const versions = parseVersions(readIfExists(join(contractDir, ARTIFACTS.versions)));
  const guard = checkVersionGuard(versions, artifacts.version, artifacts.hash);
  if (!guard.ok) problems.push(guard.error);
  if (!guard.ok || guard.added) stale.push(ARTIFACTS.versions);
  return { ok: stale.length === 0 && problems.length === 0, stale, problems };
}

/** Rewrites the version inside every `$id`/`$ref` of a schema file's text (formatting kept). */
export function rewriteSchemaVersion(text: string, from: string, to: string): string {
  return text.split(`${SCHEMA_ID_BASE}${from}/`).join(`${SCHEMA_ID_BASE}${to}/`);
}

/** Bumps the contract version: package.json `version` and every schema `$id`/`$ref`. Does not build. */
export function bumpContractVersion(contractDir: string, to: string): string {
  if (!VERSION_RE.test(to)) throw new ContractError(`--bump: ${JSON.stringify(to)} is not a semver version`);
  const from = readContractVersion(contractDir);
  if (from === to) throw new ContractError(`--bump: the contract is already at ${to}`);
  const pkgFile = join(contractDir, 'package.json');
  const pkgText = readFileSync(pkgFile, 'utf8');
  const pkgNext = pkgText.replace(`"version": "${from}"`, `"version": "${to}"`);
  if (pkgNext === pkgText)
    throw new ContractError('--bump: could not find the version in contract/package.json');
  for (const name of SCHEMA_NAMES) {
    const file = join(contractDir, 'schemas', `${name}.schema.json`);
    writeFileSync(file, rewriteSchemaVersion(readFileSync(file, 'utf8'), from, to));
  }
  writeFileSync(pkgFile, pkgNext);
  return from;
}

async function main(argv: string[]): Promise<number> {
  const dir = DEFAULT_CONTRACT_DIR;
  const check = argv.includes('--check');
  const bumpAt = argv.indexOf('--bump');
  try {
    if (check) {
      const result = await checkContract(dir);
      if (result.ok) {
        console.log(`contract:check ok (version ${readContractVersion(dir)})`);
        return 0;
      }
      console.error('contract:check failed: the committed contract artifacts are stale or inconsistent.');
      for (const rel of result.stale) console.error(`  stale: contract/${rel}`);
      for (const problem of result.problems) console.error(`  ${problem}`);
      console.error('Run `npm run contract:build` and commit the result.');
      return 1;
    }
    if (bumpAt >= 0) {
      const to = argv[bumpAt + 1] ?? '';
      const from = bumpContractVersion(dir, to);
      console.log(`contract version bumped ${from} -> ${to}`);
    }
    const { artifacts, written } = await buildContract(dir);
    console.log(`contract ${artifacts.version} hash ${artifacts.hash}`);
    console.log(
      written.length > 0 ? `wrote ${written.map((w) => `contract/${w}`).join(', ')}` : 'up to date',
    );
    return 0;
  } catch (err) {
    if (err instanceof ContractError) {
      console.error(`contract build failed: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

const invokedAs = process.argv[1];
if (invokedAs !== undefined && pathToFileURL(resolve(invokedAs)).href === import.meta.url) {
  process.exitCode = await main(process.argv.slice(2));
}
