/**
 * The deterministic request fuzzer: from a seed and a "world" (an account's key, another
 * account's key, jobs in each status), it builds requests that are each wrong in at least
 * one way the contract rejects, so every one must get a 4xx with the Error shape and
 * change nothing. Plain data, so Node runs the cases against the handler and Chromium
 * runs the same cases through the service worker.
 *
 * @module
 */
import { pick, seededRandom } from './support.ts';

/** One job the fuzzer aims at. */
export interface FuzzJob {
  jobId: string;
  sourceIds: string[];
  /** Set on a job with a multipart source. */
  multipart?: { sourceId: string; uploadId: string; key: string };
}

/** What the fuzzer knows about the service it attacks. */
export interface FuzzWorld {
  /** Base path, e.g. `/api`. */
  basePath: string;
  key: string;
  otherKey: string;
  /** Jobs of `key`'s account, by status (created, multipart, processing, mapping, ready, complete, failed). */
  jobs: Record<string, FuzzJob>;
  /** A job of the other account. */
  otherJobId: string;
  /** A job that was deleted. */
  deletedJobId: string;
}

/** A request as plain data. `hugeBytes`: the body is a lazily generated JSON string of this many bytes. */
export interface FuzzCase {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  hugeBytes?: number;
}

type Json = Record<string, unknown>;

interface Operation {
  name: string;
  method: string;
  /** Path for a job id (and the job, for sub-resources). */
  path: (jobId: string, job: FuzzJob) => string;
  /** The job status it is aimed at; `null` for paths without a job id. */
  jobStatus: string | null;
  /** A body the operation would accept (on the aimed-at job); null for operations without a body. */
  body: ((job: FuzzJob) => Json) | null;
  /** A missing or null body is fine for this operation. */
  optionalBody: boolean;
  /** Fields that must be present: dropping one is a defect. */
  required: string[];
  /** Enum-valued paths in the body, with a value outside the enum. */
  enums: Array<string[]>;
  /** The operation is valid with another account's key (listJobs, createJob), so that is no defect. */
  anyAccount: boolean;
}

const OPERATIONS: Operation[] = [
  {
    name: 'createJob',
    method: 'POST',
    path: () => '/jobs',
    jobStatus: null,
    optionalBody: false,
    anyAccount: true,
    body: () => ({
      sources: [{ label: 'Cam A' }, { label: 'Cam B', kind: 'video' }],
      title: 'Fuzz',
      autoMap: 'confident',
      review: true,
      silence: { mode: 'tighten' },
    }),
    required: ['sources'],
    enums: [['autoMap'], ['silence', 'mode'], ['sources', '0', 'kind']],
  },
  {
    name: 'listJobs',
    method: 'GET',
    path: () => '/jobs',
    jobStatus: null,
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: true,
  },
  {
    name: 'getJob',
    method: 'GET',
    path: (id) => `/jobs/${id}`,
    jobStatus: 'ready',
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'getJobSummary',
    method: 'GET',
    path: (id) => `/jobs/${id}?view=summary`,
    jobStatus: 'mapping',
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'deleteJob',
    method: 'DELETE',
    path: (id) => `/jobs/${id}`,
    jobStatus: 'complete',
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'requestUploadPartUrls',
    method: 'POST',
    path: (id, job) => `/jobs/${id}/sources/${job.multipart?.sourceId ?? job.sourceIds[0]}/parts`,
    jobStatus: 'multipart',
    body: (job) => ({ uploadId: job.multipart?.uploadId ?? 'x', partNumbers: [1, 2] }),
    optionalBody: false,
    required: ['uploadId', 'partNumbers'],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'completeMultipartUpload',
    method: 'POST',
    path: () => '/uploads/complete',
    jobStatus: 'multipart',
    body: (job) => ({ key: job.multipart?.key ?? 'x', uploadId: job.multipart?.uploadId ?? 'x' }),
    optionalBody: false,
    required: ['key', 'uploadId'],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'abortMultipartUpload',
    method: 'POST',
    path: () => '/uploads/abort',
    jobStatus: 'multipart',
    body: (job) => ({ key: job.multipart?.key ?? 'x', uploadId: job.multipart?.uploadId ?? 'x' }),
    optionalBody: false,
    required: ['key', 'uploadId'],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'startProcessing',
    method: 'POST',
    path: (id) => `/jobs/${id}/process`,
    jobStatus: 'created',
    body: (job) => ({ diarizeSourceIds: [job.sourceIds[0]] }),
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'submitSpeakerMapping',
    method: 'POST',
    path: (id) => `/jobs/${id}/tracks`,
    jobStatus: 'mapping',
    body: (job) => ({
      tracks: [
        { sourceId: job.sourceIds[0], speakers: ['SPEAKER_00'] },
        { sourceId: job.sourceIds[1], speakers: ['SPEAKER_01'] },
      ],
    }),
    optionalBody: false,
    required: ['tracks'],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'recutJob',
    method: 'POST',
    path: (id) => `/jobs/${id}/recut`,
    jobStatus: 'ready',
    body: () => ({ presetId: 'balanced', silence: { mode: 'tighten', minPauseSec: 1 } }),
    optionalBody: false,
    required: [],
    enums: [['presetId'], ['silence', 'mode']],
    anyAccount: false,
  },
  {
    name: 'updateCuts',
    method: 'PATCH',
    path: (id) => `/jobs/${id}/cuts`,
    jobStatus: 'ready',
    body: (job) => ({
      cuts: [{ sourceId: job.sourceIds[0], startMs: 0, endMs: 1000 }],
      removedRanges: [{ startMs: 0, endMs: 10 }],
    }),
    optionalBody: false,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'startRender',
    method: 'POST',
    path: (id) => `/jobs/${id}/render`,
    jobStatus: 'ready',
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'approveJob',
    method: 'POST',
    path: (id) => `/jobs/${id}/approve`,
    jobStatus: 'complete',
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'retryJob',
    method: 'POST',
    path: (id) => `/jobs/${id}/retry`,
    jobStatus: 'failed',
    body: (job) => ({ diarizeSourceIds: [job.sourceIds[0]] }),
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
  {
    name: 'exportJobEdit',
    method: 'GET',
    path: (id) => `/jobs/${id}/export`,
    jobStatus: 'ready',
    body: null,
    optionalBody: true,
    required: [],
    enums: [],
    anyAccount: false,
  },
];

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A value of a different JSON type than `value` (never null: null often means "absent"). */
function wrongType(random: () => number, value: unknown): unknown {
  const candidates: unknown[] = [42, -1.5, 'text', true, false, { x: 1 }, [1, 'a'], '', 1e308];
  const typeOf = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v);
  const different = candidates.filter((c) => typeOf(c) !== typeOf(value));
  return pick(random, different);
}

/** All paths to leaves and containers of a JSON value. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  if (Array.isArray(value))
    value.forEach((v, i) => out.push([...prefix, String(i)], ...pathsOf(v, [...prefix, String(i)])));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k]));
  return out;
}

function getAt(root: unknown, path: string[]): unknown {
  let v: unknown = root;
  for (const p of path) v = (v as Record<string, unknown>)[p];
  return v;
}
function setAt(root: unknown, path: string[], value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string, unknown>;
  parent[path[path.length - 1]!] = value;
}

/** 10 000 levels of nested arrays (or objects). */
export function deeplyNested(levels: number, objects: boolean): string {
  return objects ? '{"a":'.repeat(levels) + '1' + '}'.repeat(levels) : '['.repeat(levels) + ']'.repeat(levels);
}

const BAD_IDS = [
  'not-a-uuid',
  '123',
  'null',
  '..',
  'job%20x',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-4fff-bfff-ffffffffffff',
  'x'.repeat(5000),
  "'; DROP TABLE jobs; --",
  '%zz',
  '\u00e9t\u00e9',
];
const BAD_IDEMPOTENCY_KEYS = ['\u0001abc', 'a\u007fb', 'tab\tkey', 'x'.repeat(256), '', ' ', '\u00e9'];
const BAD_AUTH = (world: FuzzWorld, random: () => number): string | null =>
  pick(random, [
    null,
    'Bearer',
    'Bearer mc_live_' + 'a'.repeat(32),
    'Bearer ' + 'A'.repeat(64 * 1024),
    'Basic ' + world.key,
    `Bearer ${world.key}x`,
    `Bearer ${world.key.slice(0, -1)}`,
    `bearer  ${world.key} extra`,
    'Review not-a-token',
    'Review ' + 'z'.repeat(4096),
  ]);

/**
 * `count` cases from `seed`. Roughly one in ten is a "structural" defect (path, auth,
 * method, header); the rest break the body of an operation that takes one.
 */
export function generateFuzzCases(
  world: FuzzWorld,
  seed: number,
  count: number,
  options: { hugeEvery?: number } = {},
): FuzzCase[] {
  const random = seededRandom(seed);
  const cases: FuzzCase[] = [];
  const hugeEvery = options.hugeEvery ?? 0;
  const bodyOps = OPERATIONS.filter((o) => o.body !== null);
  for (let n = 0; n < count; n++) {
    const huge = hugeEvery > 0 && n % hugeEvery === hugeEvery - 1;
    const structural = !huge && random() < 0.35;
    const op = structural ? pick(random, OPERATIONS) : pick(random, bodyOps);
    const job = op.jobStatus === null ? world.jobs['ready']! : world.jobs[op.jobStatus]!;
    const headers: Record<string, string> = { authorization: `Bearer ${world.key}` };
    let jobId = job.jobId;
    let method = op.method;
    let body: string | undefined = op.body === null ? undefined : JSON.stringify(op.body(job));
    let what = `${op.name}`;
    let hugeBytes: number | undefined;

    if (!huge && random() < 0.08) {
      // The signed routes (no Authorization): forged, missing or malformed exp/sig, wrong methods.
      const target = pick(random, [
        ['PUT', `/signed/upload/${job.jobId}/${job.sourceIds[0]}`],
        ['PUT', `/signed/upload/${world.otherJobId}/${job.sourceIds[1]}`],
        [
          'PUT',
          `/signed/upload/${job.jobId}/${job.sourceIds[0]}/parts/${world.jobs['multipart']!.multipart!.uploadId}/1`,
        ],
        ['PUT', `/signed/upload/${job.jobId}/${job.sourceIds[0]}/parts/x/99999999999`],
        ['GET', `/signed/files/${job.sourceIds[0]}`],
        ['HEAD', `/signed/files/${pick(random, BAD_IDS)}`],
        ['POST', `/signed/files/${job.jobId}`],
        ['DELETE', `/signed/upload/${job.jobId}/${job.sourceIds[0]}`],
      ] as const);
      const query = pick(random, [
        '',
        '?exp=1&sig=x',
        `?exp=${'9'.repeat(30)}&sig=${'A'.repeat(43)}`,
        '?exp=-1&sig=',
        '?sig=abc',
        '?exp=abc&sig=abc',
        '?exp=1e20&sig=%00',
        `?exp=4102444800000&sig=${'_'.repeat(43)}&exp=1`,
      ]);
      const method = target[0] === 'HEAD' ? 'GET' : target[0];
      const headers: Record<string, string> = random() < 0.5 ? {} : { authorization: `Bearer ${world.key}` };
      cases.push({
        what: `#${n} signed ${method} ${target[1].split('/').slice(0, 3).join('/')}${query}`,
        method,
        path: world.basePath + target[1] + query,
        headers,
        ...(method === 'PUT' ? { body: 'forged upload bytes' } : {}),
      });
      continue;
    }
    if (huge) {
      hugeBytes = 50 * 1024 * 1024;
      body = undefined;
      method = op.body === null ? 'POST' : op.method;
      what += ': 50 MB JSON string body';
      if (op.body === null) {
        // An operation without a body: aim the huge body at a path that is wrong anyway.
        jobId = world.deletedJobId;
      }
    } else if (structural) {
      const kind = pick(random, [
        'id',
        'id',
        'auth',
        'method',
        ...(op.name === 'createJob' ? ['idempotency', 'idempotency'] : []),
      ] as const);
      if (kind === 'id' && op.jobStatus !== null && !op.path('X', job).startsWith('/uploads')) {
        jobId = pick(random, [...BAD_IDS, world.otherJobId, world.deletedJobId, world.otherJobId]);
        what += `: bad job id ${jobId.slice(0, 40)}`;
      } else if (kind === 'auth' || kind === 'id') {
        const auth = op.anyAccount || random() < 0.6 ? BAD_AUTH(world, random) : `Bearer ${world.otherKey}`;
        if (auth === null) delete headers['authorization'];
        else headers['authorization'] = auth;
        what += `: bad Authorization ${(auth ?? '(none)').slice(0, 40)}`;
      } else if (kind === 'method') {
        const allowed = OPERATIONS.filter(
          (o) => o.path(jobId, job).split('?')[0] === op.path(jobId, job).split('?')[0],
        ).map((o) => o.method);
        method = pick(
          random,
          ALL_METHODS.filter((m) => !allowed.includes(m)),
        );
        if (method === 'GET') body = undefined;
        what += `: wrong method ${method}`;
      } else {
        const key = pick(random, BAD_IDEMPOTENCY_KEYS);
        headers['idempotency-key'] = key;
        what += `: Idempotency-Key ${JSON.stringify(key.slice(0, 20))}`;
      }
    } else {
      const template = op.body!(job);
      const kind = pick(random, [
        'malformed',
        'malformed',
        'toplevel',
        'type',
        'type',
        'type',
        'enum',
        'missing',
        'nested',
        'unknown+type',
      ] as const);
      if (kind === 'malformed') {
        const text = JSON.stringify(template);
        const variant = random();
        if (variant < 0.5) body = text.slice(0, 1 + Math.floor(random() * (text.length - 1)));
        else if (variant < 0.7) body = text + pick(random, ['x', '}', ',', ' {}', '\u0000']);
        else
          body = pick(random, [
            "{'a':1}",
            '{a:1}',
            '{"a":1,}',
            'nul',
            'tru',
            '[1,]',
            '{"a":"\\x"}',
            '\u0000',
            '{"a":01}',
            'NaN',
            '{"a":Infinity}',
          ]);
        what += `: malformed JSON ${JSON.stringify(body.slice(0, 30))}`;
      } else if (kind === 'toplevel') {
        body = pick(random, ['[]', '[{}]', '"string"', '42', 'true', ...(op.optionalBody ? [] : ['null'])]);
        what += `: top-level ${body}`;
      } else if (kind === 'enum' && op.enums.length > 0) {
        const path = pick(random, op.enums);
        setAt(template, path, pick(random, ['sometimes', 'BALANCED', '', 'off ', 'always\u0000', 'video,audio']));
        body = JSON.stringify(template);
        what += `: bad enum at ${path.join('.')}`;
      } else if (kind === 'missing' && op.required.length > 0) {
        const field = pick(random, op.required);
        delete template[field];
        body = JSON.stringify(template);
        what += `: missing ${field}`;
      } else if (kind === 'nested') {
        const path = pick(random, pathsOf(template));
        setAt(template, path, '__NESTED__');
        body = JSON.stringify(template).replace('"__NESTED__"', deeplyNested(10_000, random() < 0.5));
        what += `: 10k-level nesting at ${path.join('.')}`;
      } else {
        const path = pick(random, pathsOf(template));
        setAt(template, path, wrongType(random, getAt(template, path)));
        if (kind === 'unknown+type')
          template[pick(random, ['extra', '__proto__', 'constructor', 'jobId', 'status'])] = {
            injected: true,
          };
        body = JSON.stringify(template);
        what += `: wrong type at ${path.join('.')}${kind === 'unknown+type' ? ' + unknown field' : ''}`;
      }
      if (body !== undefined) headers['content-type'] = 'application/json';
    }
    cases.push({
      what: `#${n} ${what}`,
      method,
      path: world.basePath + op.path(jobId, { ...job, jobId }),
      headers,
      ...(body === undefined ? {} : { body }),
      ...(hugeBytes === undefined ? {} : { hugeBytes }),
    });
  }
  return cases;
}

/** A lazily generated body: `"aaaa…"` of `bytes` bytes; `pulled()` says how much was read. */
export function hugeJsonStream(bytes: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const piece = sent === 0 ? new Uint8Array([0x22, ...chunk.subarray(1)]) : chunk;
      const size = Math.min(piece.byteLength, bytes - sent);
      sent += size;
      controller.enqueue(piece.subarray(0, size));
    },
  });
  return { stream, pulled: () => sent };
}
