// @reelshelf/contract: the wire contract shared by server and clients (spec §9).
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import type { ContractSchemaTypes } from './generated/types.ts';
import { CONTRACT_HASH, CONTRACT_VERSION } from './generated/version.ts';
import { computeHash } from './hash.ts';
import { type ContractBundle, type JsonObject, SCHEMA_NAMES, type SchemaName, schemaIdFor } from './names.ts';

export type * from './generated/types.ts';
export type * from './api.ts';
export {
  BADGE_VALUES,
  INCOMPATIBILITY_TYPES,
  PLAYBACK_PREDICTIONS,
  PLAYBACK_STATUS_CODES,
  PREWARM_STATUSES,
} from './generated/types.ts';
export { CONTRACT_HASH, CONTRACT_VERSION } from './generated/version.ts';
export { computeHash } from './hash.ts';
export {
  CONTRACT_ROUTES,
  type ContractBundle,
  isSchemaName,
  type JsonObject,
  type JsonValue,
  SCHEMA_NAMES,
  type SchemaName,
  TYPE_NAMES,
} from './names.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBundle(value: unknown): value is ContractBundle {
  if (!isRecord(value) || typeof value.version !== 'string' || typeof value.hash !== 'string') return false;
  const { schemas, routes } = value;
  return isRecord(schemas) && isRecord(routes) && SCHEMA_NAMES.every((n) => isRecord(schemas[n]));
}

function loadBundle(): ContractBundle {
  const url = new URL('../contract.bundle.json', import.meta.url);
  const parsed: unknown = JSON.parse(readFileSync(url, 'utf8'));
  if (!isBundle(parsed)) throw new Error(`${url.pathname} is not a contract bundle`);
  if (
    parsed.version !== CONTRACT_VERSION ||
    parsed.hash !== CONTRACT_HASH ||
    computeHash(parsed) !== parsed.hash
  ) {
    throw new Error(
      `contract.bundle.json (version ${parsed.version}, hash ${parsed.hash}) does not match the embedded contract ` +
        `${CONTRACT_VERSION} ${CONTRACT_HASH}: run npm run contract:build`,
    );
  }
  return parsed;
}

/** The published contract bundle (contract.bundle.json), loaded and hash-verified at import. */
export const CONTRACT_BUNDLE: Readonly<ContractBundle> = loadBundle();

/** The `$id` of contract schema `name` at the current contract version. */
export function schemaId(name: SchemaName): string {
  return schemaIdFor(name, CONTRACT_VERSION);
}

/** The JSON Schema of contract schema `name` (from the bundle). */
export function getSchema(name: SchemaName): JsonObject {
  return CONTRACT_BUNDLE.schemas[name];
}

/** Outcome of `validate`: the typed value, or one readable message per violation. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** An Ajv 2020 instance holding every contract schema, with typed helpers. */
export interface ContractValidator {
  /** The underlying Ajv instance (schemas are addressable by `schemaId(name)`). */
  readonly ajv: Ajv2020;
  /** Validates `value` against schema `name`. */
  validate<N extends SchemaName>(name: N, value: unknown): ValidationResult<ContractSchemaTypes[N]>;
  /** Type guard form of `validate`. */
  is<N extends SchemaName>(name: N, value: unknown): value is ContractSchemaTypes[N];
}

/** Formats one Ajv error as `<instance path> <message>` (with the offending property or allowed values). */
export function formatAjvError(error: ErrorObject): string {
  const path = error.instancePath === '' ? '/' : error.instancePath;
  const params: Record<string, unknown> = error.params;
  let extra = '';
  if (typeof params.additionalProperty === 'string') extra = ` (${params.additionalProperty})`;
  else if (Array.isArray(params.allowedValues)) extra = ` (${params.allowedValues.join(', ')})`;
  else if (params.allowedValue !== undefined) extra = ` (${JSON.stringify(params.allowedValue)})`;
  return `${path} ${error.message ?? 'is invalid'}${extra}`;
}

/** Creates a strict Ajv 2020 instance with every contract schema added, plus typed `validate`/`is` helpers. */
export function createContractValidator(): ContractValidator {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  for (const name of SCHEMA_NAMES) ajv.addSchema(CONTRACT_BUNDLE.schemas[name]);
  const compiled = (name: SchemaName) => {
    const fn = ajv.getSchema(schemaId(name));
    if (fn === undefined) throw new Error(`contract schema ${name} is not registered`);
    return fn;
  };
  return {
    ajv,
    validate<N extends SchemaName>(name: N, value: unknown): ValidationResult<ContractSchemaTypes[N]> {
      const fn = compiled(name);
      if (fn(value)) return { ok: true, value: value as ContractSchemaTypes[N] };
      return { ok: false, errors: (fn.errors ?? []).map(formatAjvError) };
    },
    is<N extends SchemaName>(name: N, value: unknown): value is ContractSchemaTypes[N] {
      return compiled(name)(value) === true;
    },
  };
}
