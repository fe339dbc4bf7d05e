/**
 * The one error catalogue: every failure a client can see is an AppError with a stable snake_case
 * code, an HTTP status, a message a person can read and, where someone can act, a hint. An AppError
 * takes only a code listed here, and server/test/unit/error-catalogue.test.ts checks every code
 * constructed in server/src is here and in docs/api.md's table.
 * Response bodies are the contract's ApiError (spec §2.10); extra members ride along in `extra`.
 */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 400, message: 'The request is not valid.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  bad_request: { status: 400, message: 'The request could not be handled.' },
  unknown_device: { status: 400, message: 'Unknown device.' },
  invalid_barcode: { status: 400, message: 'This is not a valid barcode.' },
  import_invalid: { status: 400, message: 'The import has rows that cannot be imported.' },
  not_playable: { status: 400, message: 'This file cannot play on this device.' },
  unsupported_media_type: { status: 415, message: 'This content type is not accepted here.' },
  unauthorized: { status: 401, message: 'Authentication is required.' },
  forbidden: { status: 403, message: 'This action is not allowed.' },
  csrf_failed: { status: 403, message: 'The CSRF token is missing or does not match the session.' },
  not_found: { status: 404, message: 'Not found.' },
  file_missing: { status: 404, message: 'The media file is missing.' },
  trickplay_not_made: { status: 404, message: 'No seek thumbnails have been made for this file.' },
  trickplay_off: { status: 404, message: 'This server makes no seek thumbnails.' },
  barcode_not_found: { status: 404, message: 'No product is known under this barcode.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  last_admin: { status: 409, message: 'The household must keep at least one admin.' },
  contract_mismatch: { status: 409, message: 'Client and server contract hashes differ.' },
  slot_taken: { status: 409, message: 'This binder slot already holds a disc.' },
  binder_exists: { status: 409, message: 'There is already a binder with this name.' },
  already_on_loan: { status: 409, message: 'This disc is already lent out.' },
  not_on_loan: { status: 409, message: 'This disc is not lent out.' },
  binder_full: { status: 409, message: 'This binder has no free slot.' },
  already_owned: { status: 409, message: 'A disc with this barcode is already in the library.' },
  already_wished: { status: 409, message: 'This film is on the wish list already.' },
  ambiguous_match: { status: 409, message: 'Several movies match.' },
  root_exists: { status: 409, message: 'This folder is already a library root.' },
  root_overlaps: { status: 409, message: 'This folder overlaps another library root.' },
  trickplay_unavailable: { status: 409, message: 'This server makes no seek thumbnails.' },
  subtitle_is_image: { status: 409, message: 'This subtitle track is pictures, not text: it has no WebVTT.' },
  precondition_failed: { status: 412, message: 'A precondition of the request does not hold.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  range_not_satisfiable: { status: 416, message: 'The requested range is not satisfiable.' },
  rate_limited: { status: 429, message: 'Too many failed attempts; wait before trying again.' },
  subtitle_unreadable: { status: 422, message: 'The subtitle track cannot be read as subtitles.' },
  trickplay_failed: { status: 422, message: 'The seek thumbnails of this file could not be made.' },
  subtitle_burn_unsupported: {
    status: 422,
    message: 'This subtitle track cannot be burned into the picture.',
  },
  upstream_unavailable: { status: 502, message: 'An upstream service did not answer usably.' },
  service_unavailable: { status: 503, message: 'The service is not ready.' },
  conversions_busy: { status: 503, message: 'Every conversion slot of this server is in use.' },
  artifact_building: { status: 503, message: 'The playback file is still being prepared.' },
  artifact_unavailable: { status: 503, message: 'The playback file could not be prepared.' },
  trickplay_pending: { status: 503, message: 'The seek thumbnails of this file are being made.' },
  internal_error: { status: 500, message: 'Something went wrong on the server.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type CatalogueCode = keyof typeof ERROR_CATALOGUE;

/** Extra ApiError members (spec §2.10 allows additional properties). */
export type ApiErrorExtra = Record<string, unknown>;

export interface AppErrorOptions {
  status?: number;
  message?: string;
  hint?: string;
  extra?: ApiErrorExtra;
  headers?: Record<string, string>;
}

/** A failure with a stable code; thrown by services, rendered by the HTTP error handler. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: CatalogueCode;
  readonly status: number;
  readonly hint: string | undefined;
  readonly extra: ApiErrorExtra;
  readonly headers: Record<string, string>;

  constructor(code: CatalogueCode, options: AppErrorOptions = {}) {
    const known = ERROR_CATALOGUE[code];
    super(options.message ?? known.message);
    this.code = code;
    this.status = options.status ?? known.status;
    this.hint = options.hint;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /** The ApiError body (spec §2.10). */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code, message: this.message };
    if (this.hint !== undefined) body.hint = this.hint;
    return { ...body, ...this.extra };
  }
}

/** 404 for an entity kind and id, with a consistent message. */
export function notFound(kind: string, id: string | number): AppError {
  return new AppError('not_found', { message: `No ${kind} with id ${id}.` });
}

/** 400 validation_failed naming the field that failed. */
export function validationFailed(field: string, message: string, hint?: string): AppError {
  return new AppError('validation_failed', {
    message: `${field}: ${message}`,
    ...(hint === undefined ? {} : { hint }),
    extra: { field },
  });
}
