/**
 * The typed client of the contract: one method per operation over `fetch`. It runs unchanged
 * against the service worker, a foreign base URL, or msw in Node.
 *
 * @module
 */
import type {
  CreateJobRequest,
  CreateJobResponse,
  GetJobResponse,
  JobStatusResponse,
  JobSummary,
  ListJobsResponse,
  MultipartKeyRequest,
  OkResponse,
  NameSpeakersRequest,
  NameSpeakersResponse,
  RecutRequest,
  RecutResponse,
  RequestUploadPartUrlsRequest,
  RequestUploadPartUrlsResponse,
  RetryRequest,
  StartProcessingRequest,
  StartProcessingResponse,
  SubmitSpeakerMappingRequest,
  SubmitSpeakerMappingResponse,
  UpdateCutsRequest,
} from '../contract/types.ts';
import type { ExportFormat } from '../export/index.ts';
import { apiErrorOf, readApiResponse } from './response.ts';

/** Options of {@link MulticamClient}. */
export interface ClientOptions {
  /** The service's base URL including the base path, e.g. `https://api.example.com/api`. */
  baseUrl: string;
  /** An account API key (`mc_live_…`), or with `authScheme: 'Review'` the token of a `reviewUrl`. */
  apiKey: string;
  /**
   * How `apiKey` is sent: `Authorization: Bearer <key>` (default), or `Authorization: Review
   * <token>`, which the routes accept for the review token's one job only (the review editor).
   */
  authScheme?: 'Bearer' | 'Review';
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
}

/** Query options of {@link MulticamClient.exportEdit}. */
export interface ExportEditOptions {
  /** EDL only: 0 the switched edit (default), N only camera N. */
  track?: number;
  /** Frame rate (23.976, 25, 29.97, …); default the main camera's, else 30. */
  fps?: number;
  /** Drop-frame (`df`, default at 29.97/59.94) or non-drop (`ndf`) timecode. */
  timecode?: 'df' | 'ndf';
  /** Timecode of the timeline's first frame (`HH:MM:SS:FF`) in every format; default `01:00:00:00`. */
  recordStart?: string;
  /** Folder URL the media paths are written under (e.g. `file:///Volumes/Podcast/ep12/`); default bare file names. */
  mediaRoot?: string;
}

/** An exported edit as the service sent it. */
export interface ExportedEdit {
  /** The file name from Content-Disposition (e.g. `Ep 12.fcpxml`). */
  filename: string;
  contentType: string;
  /** The document (XML, OTIO JSON or EDL text). */
  body: string;
}

/** createJob's response plus whether it was an idempotent replay. */
export interface CreateJobResult extends CreateJobResponse {
  replayed: boolean;
}

/**
 * A client of the multicam REST contract. Error responses throw `ApiError` (contract/errors.ts) with the
 * HTTP `status`, the Error `body` (and `code`) and the response `headers`.
 *
 * @example
 * const client = new MulticamClient({ baseUrl: 'https://api.example.com/api', apiKey });
 * const { jobId, uploads } = await client.createJob({ sources: [{ label: 'Cam A' }, { label: 'Cam B' }] }, { idempotencyKey: 'ep-12' });
 * for (const [id, up] of Object.entries(uploads)) if (up.method === 'put') await client.upload(up.url, files[id]);
 * await client.startProcessing(jobId);
 */
export class MulticamClient {
  readonly baseUrl: string;
  /** The Authorization header value of every call but {@link MulticamClient.upload}. */
  private readonly authorization: string;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.authorization = `${options.authScheme ?? 'Bearer'} ${options.apiKey}`;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  private async send<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ data: T; response: Response }> {
    const init: RequestInit = { method, headers: { authorization: this.authorization, ...headers } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await this.fetchImpl(`${this.baseUrl}${path}`, init);
    return { data: await readApiResponse<T>(response), response };
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.send<T>(method, path, body)).data;
  }

  private job(jobId: string, rest = ''): string {
    return `/jobs/${encodeURIComponent(jobId)}${rest}`;
  }

  /** createJob. With `idempotencyKey`, a retry returns the same job (`replayed: true`). */
  async createJob(request: CreateJobRequest, options: { idempotencyKey?: string } = {}): Promise<CreateJobResult> {
    const headers: Record<string, string> =
      options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey };
    const { data, response } = await this.send<CreateJobResponse>('POST', '/jobs', request, headers);
    return { ...data, replayed: response.headers.get('idempotent-replayed') === 'true' };
  }

  listJobs(): Promise<ListJobsResponse> {
    return this.call('GET', '/jobs');
  }

  getJob(jobId: string): Promise<GetJobResponse> {
    return this.call('GET', this.job(jobId));
  }

  getJobSummary(jobId: string): Promise<JobSummary> {
    return this.call('GET', this.job(jobId, '?view=summary'));
  }

  deleteJob(jobId: string): Promise<OkResponse> {
    return this.call('DELETE', this.job(jobId));
  }

  requestUploadPartUrls(
    jobId: string,
    sourceId: string,
    request: RequestUploadPartUrlsRequest,
  ): Promise<RequestUploadPartUrlsResponse> {
    return this.call('POST', this.job(jobId, `/sources/${encodeURIComponent(sourceId)}/parts`), request);
  }

  completeMultipartUpload(request: MultipartKeyRequest): Promise<OkResponse> {
    return this.call('POST', '/uploads/complete', request);
  }

  abortMultipartUpload(request: MultipartKeyRequest): Promise<OkResponse> {
    return this.call('POST', '/uploads/abort', request);
  }

  startProcessing(jobId: string, request: StartProcessingRequest = {}): Promise<StartProcessingResponse> {
    return this.call('POST', this.job(jobId, '/process'), request);
  }

  submitSpeakerMapping(jobId: string, request: SubmitSpeakerMappingRequest): Promise<SubmitSpeakerMappingResponse> {
    return this.call('POST', this.job(jobId, '/tracks'), request);
  }

  /** Additive: names the detected speakers (every name in force; `""` or left out: unnamed). */
  nameSpeakers(jobId: string, request: NameSpeakersRequest): Promise<NameSpeakersResponse> {
    return this.call('PUT', this.job(jobId, '/speakers'), request);
  }

  recutJob(jobId: string, request: RecutRequest): Promise<RecutResponse> {
    return this.call('POST', this.job(jobId, '/recut'), request);
  }

  updateCuts(jobId: string, request: UpdateCutsRequest): Promise<{ jobId: string; success: true }> {
    return this.call('PATCH', this.job(jobId, '/cuts'), request);
  }

  startRender(jobId: string): Promise<JobStatusResponse> {
    return this.call('POST', this.job(jobId, '/render'));
  }

  approveJob(jobId: string): Promise<JobStatusResponse> {
    return this.call('POST', this.job(jobId, '/approve'));
  }

  retryJob(jobId: string, request: RetryRequest = {}): Promise<JobStatusResponse> {
    return this.call('POST', this.job(jobId, '/retry'), request);
  }

  /**
   * exportEdit (extension): the job's edit as FCPXML, Premiere XML (`xmeml`), OpenTimelineIO or
   * CMX 3600 EDL, for Final Cut Pro, Resolve, Premiere or Avid.
   *
   * @example
   * const { filename, body } = await client.exportEdit(jobId, 'edl', { fps: 29.97, timecode: 'df' });
   */
  async exportEdit(jobId: string, format: ExportFormat, options: ExportEditOptions = {}): Promise<ExportedEdit> {
    const query = new URLSearchParams({ format });
    if (options.track !== undefined) query.set('track', String(options.track));
    if (options.fps !== undefined) query.set('fps', String(options.fps));
    if (options.timecode !== undefined) query.set('timecode', options.timecode);
    if (options.recordStart !== undefined) query.set('recordStart', options.recordStart);
    if (options.mediaRoot !== undefined) query.set('mediaRoot', options.mediaRoot);
    const response = await this.fetchImpl(`${this.baseUrl}${this.job(jobId, `/export?${query}`)}`, {
      method: 'GET',
      headers: { authorization: this.authorization },
    });
    const text = await response.text();
    if (!response.ok) throw apiErrorOf(response, text);
    const disposition = response.headers.get('content-disposition') ?? '';
    const utf8 = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
    const plain = /filename="([^"]*)"/i.exec(disposition);
    const filename = utf8 ? decodeURIComponent(utf8[1]!) : (plain?.[1] ?? `${jobId}.${format}`);
    return { filename, contentType: response.headers.get('content-type') ?? '', body: text };
  }

  /** PUTs bytes to a presigned URL (whole file or one part); no Authorization header is sent. */
  async upload(url: string, body: Blob | Uint8Array<ArrayBuffer> | string): Promise<void> {
    const response = await this.fetchImpl(url, { method: 'PUT', body });
    if (!response.ok) throw apiErrorOf(response, await response.text());
  }
}
