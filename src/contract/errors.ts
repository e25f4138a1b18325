/**
 * The contract's error: one class carrying the HTTP status and the spec's Error body.
 * Error codes map to HTTP statuses here and only here.
 *
 * @module
 */
import type { ErrorBody, ErrorCode, ErrorExtras } from './types.ts';

/** HTTP status of every error code, per the spec's code table. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  TRACKS_ON_CREATE: 400,
  FILE_TOO_LARGE: 400,
  INVALID_FILE_SIZE: 400,
  FILE_SIZE_MISMATCH: 400,
  UNKNOWN_SOURCE: 400,
  EMPTY_MAPPING: 400,
  CUTS_REQUIRED: 400,
  NOT_ENOUGH_VIDEOS: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  QUOTA_EXCEEDED: 403,
  INVALID_STATUS: 409,
  SOURCES_PENDING: 409,
  NO_CUTS: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  INSUFFICIENT_STORAGE: 507,
  LOCAL_FILE_UNAVAILABLE: 409,
};

/**
 * An error answered with the spec's Error shape. `name` carries the code (comlink only
 * transports name, message and stack across a worker boundary).
 *
 * @example
 * throw ApiError.withCode('NO_CUTS', 'the job has no cuts to render');
 * throw new ApiError(400, 'sources[2].fileSize must be an integer from 0 to 107374182400');
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, extra: ErrorExtras = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = extra.code ?? `HTTP_${status}`;
    this.status = status;
    this.body = { error: message, ...extra };
    this.headers = headers;
  }

  /** An error with a spec code; the status comes from {@link ERROR_STATUS}. */
  static withCode(
    code: ErrorCode,
    message: string,
    extra: Omit<ErrorExtras, 'code'> = {},
    headers: Record<string, string> = {},
  ): ApiError {
    return new ApiError(ERROR_STATUS[code], message, { code, ...extra }, headers);
  }

  /** An error as a client received it: the status, the Error body as sent, and the response headers. */
  static fromResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}): ApiError {
    const error = new ApiError(status, body.error, {}, headers);
    Object.assign(error.body, body);
    if (typeof body.code === 'string') error.name = body.code;
    return error;
  }

  /** The spec's error code, if any (a client treats an unknown code like none). */
  get code(): string | undefined {
    return typeof this.body.code === 'string' ? this.body.code : undefined;
  }

  /** 400 without a code: malformed body, missing field, bad enum. */
  static badRequest(message: string): ApiError {
    return new ApiError(400, message);
  }

  static notFound(message = 'job not found'): ApiError {
    return new ApiError(404, message);
  }

  static invalidStatus(status: string, operation: string): ApiError {
    return ApiError.withCode('INVALID_STATUS', `${operation} is not allowed while the job is ${status}`, { status });
  }
}
