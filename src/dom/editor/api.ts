/**
 * The review editor's link to the service: the contract's job operations sent with
 * `Authorization: Review <token>` (the token of a `reviewUrl`), which the routes accept for
 * this one job only. Error responses throw {@link ApiError} with the spec's Error body.
 *
 * @module
 */
import { apiErrorOf, readApiResponse } from '../../client/response.ts';
import type {
  Cut,
  GetJobResponse,
  JobStatusResponse,
  RecutRequest,
  RecutResponse,
  SubmitSpeakerMappingRequest,
  SubmitSpeakerMappingResponse,
  TimeRange,
} from '../../contract/types.ts';

/** The job id a review token names (`<jobId>.<exp>.<sig>`), or null when it is not one. */
export function jobIdOfReviewToken(token: string): string | null {
  const parts = token.split('.');
  return parts.length === 3 && parts[0] !== '' ? parts[0]! : null;
}

/** The review operations of one job. */
export class ReviewApi {
  readonly jobId: string;
  private readonly baseUrl: string;
  private readonly token: string;

  /** `baseUrl`: origin plus base path, e.g. `http://127.0.0.1:5173/api`. */
  constructor(baseUrl: string, token: string, jobId: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.token = token;
    this.jobId = jobId;
  }

  private async send<T>(method: string, rest: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Review ${this.token}` };
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return readApiResponse<T>(await fetch(`${this.baseUrl}/jobs/${encodeURIComponent(this.jobId)}${rest}`, init));
  }

  getJob(): Promise<GetJobResponse> {
    return this.send('GET', '');
  }
  submitSpeakerMapping(request: SubmitSpeakerMappingRequest): Promise<SubmitSpeakerMappingResponse> {
    return this.send('POST', '/tracks', request);
  }
  recut(request: RecutRequest): Promise<RecutResponse> {
    return this.send('POST', '/recut', request);
  }
  updateCuts(request: { cuts?: Cut[]; removedRanges?: TimeRange[] }): Promise<{ jobId: string; success: true }> {
    return this.send('PATCH', '/cuts', request);
  }
  startRender(): Promise<JobStatusResponse> {
    return this.send('POST', '/render');
  }
  approve(): Promise<JobStatusResponse> {
    return this.send('POST', '/approve');
  }
  /**
   * The current edit for editing software (`fcpxml`, `xmeml`, `otio` or `edl`), as a file. A
   * plain link cannot carry the review token's Authorization header, hence a fetch to a Blob.
   */
  async exportEdit(format: string): Promise<{ blob: Blob; filename: string }> {
    const url = `${this.baseUrl}/jobs/${encodeURIComponent(this.jobId)}/export?format=${encodeURIComponent(format)}`;
    const response = await fetch(url, { headers: { authorization: `Review ${this.token}` } });
    if (!response.ok) throw apiErrorOf(response, await response.text());
    const disposition = response.headers.get('content-disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `${this.jobId}.${format}`;
    return { blob: await response.blob(), filename };
  }
}
