/** Names of the contract schemas (spec §9), sorted; each is a file `contract/schemas/<name>.schema.json`. */
export const SCHEMA_NAMES = [
  'apiError',
  'audioTrackInfo',
  'incompatibility',
  'libraryEdition',
  'libraryMovieItem',
  'libraryResponse',
  'physicalCopyInfo',
  'playbackPrediction',
  'playbackStatusCode',
  'prewarm',
] as const;

/** One contract schema name. */
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** TypeScript type name generated for each schema. */
export const TYPE_NAMES: Readonly<Record<SchemaName, string>> = {
  apiError: 'ApiError',
  audioTrackInfo: 'AudioTrackInfo',
  incompatibility: 'Incompatibility',
  libraryEdition: 'LibraryEdition',
  libraryMovieItem: 'LibraryMovieItem',
  libraryResponse: 'LibraryResponse',
  physicalCopyInfo: 'PhysicalCopyInfo',
  playbackPrediction: 'PlaybackPrediction',
  playbackStatusCode: 'PlaybackStatusCode',
  prewarm: 'PrewarmResponse',
};

/** Route (`METHOD path`) to the schema of its response body (spec §9). */
export const CONTRACT_ROUTES: Readonly<Record<string, SchemaName>> = {
  'GET /library': 'libraryResponse',
  'GET /api/media-file/{id}/prewarm-tv': 'prewarm',
  'DELETE /api/media-file/{id}/prewarm-tv': 'prewarm',
};

/** Base of every schema `$id`. */
export const SCHEMA_ID_BASE = 'https://reelshelf.dev/contract/';

/** True when `name` is one of the contract schema names. */
export function isSchemaName(name: string): name is SchemaName {
  return (SCHEMA_NAMES as readonly string[]).includes(name);
}

/** The `$id` of schema `name` at contract `version`. */
export function schemaIdFor(name: SchemaName, version: string): string {
  return `${SCHEMA_ID_BASE}${version}/${name}.json`;
}

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object (a schema is one). */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Shape of `contract.bundle.json`. */
export interface ContractBundle {
  /** Contract version (the `version` of contract/package.json). */
  version: string;
  /** SHA-256 (lowercase hex) of the RFC 8785 canonical form of the bundle without `hash`. */
  hash: string;
  /** Every contract schema by name. */
  schemas: Record<SchemaName, JsonObject>;
  /** Route (`METHOD path`) to the schema name of its response body. */
  routes: Record<string, SchemaName>;
}
