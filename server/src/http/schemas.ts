/** Request schemas (JSON Schema, validated by Ajv before a handler runs). Unknown fields are refused. */

export const idParams = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } },
} as const;

const nullableText = (maxLength: number) => ({ type: ['string', 'null'], maxLength }) as const;

const movieFieldProps = {
  title: { type: 'string', minLength: 1, maxLength: 500, pattern: '\\S' },
  year: { type: ['integer', 'null'], minimum: 1870, maximum: 2100 },
  original_title: nullableText(500),
  overview: nullableText(20000),
  runtime_minutes: { type: ['integer', 'null'], minimum: 1, maximum: 6000 },
  tmdb_id: { type: ['integer', 'null'], minimum: 1, maximum: 2147483647 },
  imdb_id: { type: ['string', 'null'], pattern: '^tt\\d{5,10}$' },
  has_digital_store_a: { type: 'boolean' },
  has_digital_store_b: { type: 'boolean' },
  watched: { type: 'boolean' },
} as const;

export const copyInput = {
  type: 'object',
  required: ['binder'],
  additionalProperties: false,
  properties: {
    binder: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
    slot: { type: 'string', minLength: 1, maxLength: 20 },
    format: {
      type: 'string',
      enum: ['DVD', 'Blu-ray', '4K UHD', '3D Blu-ray', 'HD DVD', 'VHS', 'LaserDisc', 'Other'],
    },
    edition: { type: 'string', minLength: 1, maxLength: 200 },
    barcode: { type: 'string', pattern: '^\\d{8,14}$' },
  },
} as const;

export const createMovieBody = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    ...movieFieldProps,
    physical_copies: { type: 'array', maxItems: 50, items: copyInput },
  },
} as const;

export const patchMovieBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  // The certification's name is checked against the country's system by the service (400 + hint).
  properties: { ...movieFieldProps, certification: { type: ['string', 'null'], maxLength: 32 } },
} as const;

export const listMoviesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    offset: { type: 'integer', minimum: 0, default: 0 },
    /** Only movies with a disc lent out (issue 27). */
    on_loan: { type: 'boolean' },
  },
} as const;

/** The largest page of GET /library a client may ask for (without limit and offset: the whole listing). */
export const LIBRARY_PAGE_MAX = 10_000;

export const libraryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    device: { type: 'string', maxLength: 64 },
    limit: { type: 'integer', minimum: 1, maximum: LIBRARY_PAGE_MAX },
    offset: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
} as const;

/**
 * For POST routes whose body only carries options: a request with no body at all means "no options"
 * (`curl -X POST …` must work), so the body is taken as `{}` before validation.
 */
export async function emptyBodyIsNoOptions(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
