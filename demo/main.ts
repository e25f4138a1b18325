/**
 * The demo index page: the whole service with no backend. A person drops camera and mic
 * files (or picks the built-in sample, or the files given to `npm run demo`), picks options,
 * starts the job and watches every stage; the page lists the events outbox with each
 * webhook's delivery state, links the review editor and offers the rendered video.
 *
 * `window.multicamDemo` exposes the same actions to the command line (`multicam edit`
 * drives this page in a headless Chromium) and to the tests.
 *
 * @module
 */
import { MulticamClient } from '../src/client/client.ts';
import { downloadUrl } from '../src/client/download.ts';
import { MEDIA_SNIFF_BYTES, sniffMedia } from '../src/contract/media-sniff.ts';
import type { ExportFormat } from '../src/export/index.ts';
import type { GetJobResponse, JobListItem, JobSummary, JobWarning, PresetId, Track } from '../src/contract/types.ts';
import { probeWithMediabunny } from '../src/media/mediabunny-decoder.ts';
import type { StageRunRecord } from '../src/pipeline/runner.ts';
import { MIN_SYNC_SOURCE_MS } from '../src/pipeline/stages/syncing.ts';
import type { OutboxEvent } from '../src/webhooks/outbox.ts';
import { openEventsOutbox } from '../src/webhooks/page-outbox.ts';
import {
  cameraCards,
  createAndStartJob,
  isSettled,
  kindOf,
  proposedTracks,
  type ChosenFile,
  type JobOptions,
} from './job.ts';
import type { SampleManifest } from './sample/manifest.ts';
import { el, openDemoSession, showError, type DemoSession } from './session.ts';
import { plainStatus, StepTracker } from './steps.ts';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const status = $<HTMLParagraphElement>('status');
const log = $<HTMLPreElement>('log');

let chosen: ChosenFile[] = [];
/** The checks of the files picked last (see addFiles); start waits for them. */
let checking: Promise<void> = Promise.resolve();
/** The job being created by Start: a second click (or call) while it is under way gets the same job. */
let starting: Promise<string> | null = null;
/** Warnings about this browser (storage it may delete), shown above every job's own. */
const pageWarnings: string[] = [];
let currentJobId: string | null = null;
let lastSummary: JobSummary | null = null;
let lastStatus = '';
/** Set once the session is open: refreshes the jobs table when the job's status changes. */
let onStatusChange: () => void = () => undefined;
const reviewUrls = new Map<string, string>();
/** The progress rows of the job started on this page. */
let steps: StepTracker | null = null;
/** Jobs the service asked a person to map (their `mapping` event arrived). */
const askedToMap = new Set<string>();
/** Per asked job: whether the service proposed who is on which camera. */
const proposals = new Map<string, boolean>();

/**
 * In mapping, once the service asked: the proposal to accept, or (none yet, or too little to
 * tell) the request to say who is on which camera in the review editor. Never a guess.
 */
function showMappingChoice(jobId: string): void {
  const asked = askedToMap.has(jobId);
  $('accept-proposal').hidden = !asked || proposals.get(jobId) !== true;
  $('map-hint').hidden = !asked || proposals.get(jobId) === true;
}

function formatBytes(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(0)} kB`;
}

function showChosen(files: ChosenFile[]): void {
  chosen = files;
  const table = $<HTMLTableElement>('chosen');
  (table.tBodies[0] as HTMLTableSectionElement).replaceChildren(
    ...files.map((f) => {
      const row = el('tr');
      for (const text of [f.name, f.label, f.kind, formatBytes(f.file.size)]) row.append(el('td', text));
      return row;
    }),
  );
  table.hidden = files.length === 0;
  $<HTMLButtonElement>('start').disabled = starting !== null || !enoughVideos();
}

const enoughVideos = (): boolean => chosen.filter((f) => f.kind === 'video').length >= 2;

/** The page's warnings and the job's, in plain words; hidden when there are none. */
function showWarnings(jobWarnings: readonly JobWarning[]): void {
  const list = $<HTMLUListElement>('warnings');
  const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
  list.replaceChildren(
    ...pageWarnings.map((text) => el('li', text, { 'data-code': 'storage_not_persisted' })),
    ...jobWarnings.map((w) => el('li', `${capital(w.message)}.`, { 'data-code': w.code })),
  );
  list.hidden = list.childElementCount === 0;
}

/**
 * Why a picked file cannot be a source, in plain words naming it; null when it can. Caught here,
 * at pick time, instead of as a decoder's error at the line-up step.
 */
async function problemOf(f: ChosenFile): Promise<string | null> {
  if (f.file.size === 0)
    return `“${f.name}” is empty (0 bytes): it holds no recording. Pick the camera or mic file itself.`;
  const sniff = sniffMedia(new Uint8Array(await f.file.slice(0, MEDIA_SNIFF_BYTES).arrayBuffer()));
  if (sniff.kind !== 'media')
    return `“${f.name}” is not a video or audio file (it starts with “${sniff.kind === 'not-media' ? sniff.start : ''}”). Pick the recording itself.`;
  let durationMs: number;
  try {
    durationMs = (await probeWithMediabunny(f.file, new AbortController().signal)).durationMs;
  } catch {
    // The browser's reader cannot tell (an unusual codec): the engine's ffmpeg.wasm may still
    // read it, and it says so by the file's name if it cannot.
    return null;
  }
  if (durationMs < MIN_SYNC_SOURCE_MS)
    return (
      `“${f.name}” is only ${(durationMs / 1000).toFixed(1)} s long: lining up the recordings needs at least ` +
      `${MIN_SYNC_SOURCE_MS / 1000} s of sound from every file. Pick a longer recording.`
    );
  return null;
}

function showProblems(problems: readonly string[]): void {
  const list = $<HTMLUListElement>('file-problems');
  list.replaceChildren(...problems.map((text) => el('li', text)));
  list.hidden = problems.length === 0;
}

/** Files from an input, a drop or the file picker (with their handles); kinds from the MIME type or extension. */
function fromFileList(list: Iterable<File>, kind?: 'video' | 'audio', handles?: FileSystemFileHandle[]): ChosenFile[] {
  return [...list].map((file, i) => ({
    file,
    name: file.name,
    label: file.name.replace(/\.[^.]+$/, ''),
    kind: kind ?? kindOf(file),
    picked: true,
    ...(handles?.[i] ? { handle: handles[i] } : {}),
  }));
}

/** The File System Access picker, where the browser has one (Chromium): files it gives can be read again after a reload. */
type OpenFilePicker = (options: { multiple: boolean }) => Promise<FileSystemFileHandle[]>;
const openFilePicker = (): OpenFilePicker | undefined =>
  (window as unknown as { showOpenFilePicker?: OpenFilePicker }).showOpenFilePicker;

async function pickWithHandles(): Promise<void> {
  const picker = openFilePicker();
  if (!picker) return;
  const handles = await picker({ multiple: true });
  await addFiles(fromFileList(await Promise.all(handles.map((h) => h.getFile())), undefined, handles));
}

/** Checks the files (empty, not media, too short), lists the refused ones with why, and adds the others. */
function addFiles(files: ChosenFile[], replace = false): Promise<void> {
  checking = checking.then(async () => {
    const problems: string[] = [];
    const good: ChosenFile[] = [];
    for (const f of files) {
      const problem = await problemOf(f);
      if (problem === null) good.push(f);
      else problems.push(problem);
    }
    showProblems(problems);
    // Videos first: the contract keeps the request's order and the page shows it that way.
    const all = [...(replace ? [] : chosen), ...good];
    showChosen([...all.filter((f) => f.kind === 'video'), ...all.filter((f) => f.kind === 'audio')]);
  });
  return checking;
}

/** Fetches a manifest's files as a person's dropped files would arrive (Blob-backed Files). */
async function loadManifest(folder: string): Promise<ChosenFile[]> {
  const manifest = (await (await fetch(`${folder}/manifest.json`)).json()) as SampleManifest;
  return Promise.all(
    manifest.files.map(async (f) => {
      const response = await fetch(`${folder}/${f.file}`);
      if (!response.ok) throw new Error(`${folder}/${f.file}: HTTP ${response.status}`);
      const blob = await response.blob();
      const file = new File([blob], f.file, { type: blob.type });
      return { file, name: f.file, label: f.label, kind: f.kind, picked: false };
    }),
  );
}

async function manifestTitle(folder: string): Promise<string | null> {
  const response = await fetch(`${folder}/manifest.json`);
  if (!response.ok) return null;
  const manifest = (await response.json()) as SampleManifest;
  return `${manifest.title} — ${manifest.files.length} files`;
}

function readOptions(): JobOptions {
  return {
    review: $<HTMLInputElement>('opt-review').checked,
    inPlace: $<HTMLInputElement>('opt-in-place').checked,
    autoMap: $<HTMLSelectElement>('opt-automap').value as JobOptions['autoMap'],
    silence: $<HTMLSelectElement>('opt-silence').value as JobOptions['silence'],
    ...($<HTMLInputElement>('opt-callback').value.trim()
      ? { callbackUrl: $<HTMLInputElement>('opt-callback').value.trim() }
      : {}),
  };
}

function renderEvents(events: OutboxEvent[], accountId: string): void {
  const mine = events.filter((e) => e.accountId === accountId).sort((a, b) => b.createdAt - a.createdAt);
  const table = $<HTMLTableElement>('events');
  (table.tBodies[0] as HTMLTableSectionElement).replaceChildren(
    ...mine.map((e) => {
      const row = el('tr', undefined, { 'data-type': e.type });
      const log = e.delivery.log.map((l) => `#${l.attempt} ${l.status ?? l.error ?? ''} ${l.durationMs} ms`).join('; ');
      const delivery =
        e.callbackUrl === null
          ? `${e.delivery.state} (no callbackUrl: in-page only)`
          : `${e.delivery.state} → ${e.callbackUrl}`;
      for (const text of [
        e.type,
        e.jobId.slice(0, 8),
        new Date(e.createdAt).toLocaleTimeString(),
        delivery,
        `${e.delivery.attempts}${log ? `: ${log}` : ''}`,
      ])
        row.append(el('td', text));
      return row;
    }),
  );
  table.hidden = mine.length === 0;
  $('no-events').hidden = mine.length !== 0;
}

function showSummary(summary: JobSummary): void {
  lastSummary = summary;
  $('job').hidden = false;
  steps?.update(summary, askedToMap.has(summary.id));
  showWarnings(summary.warnings ?? []);
  $('job-plain').textContent = plainStatus(summary, {
    asked: askedToMap.has(summary.id),
    proposal: proposals.get(summary.id) === true,
  });
  $('job-id').textContent = summary.id;
  $('job-status').textContent = summary.status;
  document.body.dataset['jobStatus'] = summary.status;
  const progress = $<HTMLProgressElement>('job-progress');
  // No bar when the stage reports no fraction (the spec gives progress for rendering).
  progress.hidden = summary.progress === null;
  if (summary.progress !== null) progress.value = summary.progress;
  $('job-percent').textContent = summary.progress === null ? '' : `${Math.round(summary.progress * 100)} %`;
  $('job-next').textContent = `Next: ${summary.nextAction.type} — ${summary.nextAction.message}`;
  const error = $('job-error');
  error.hidden = summary.error === null;
  error.textContent = summary.error === null ? '' : `Failed at ${summary.failedAtStatus ?? '?'}: ${summary.error}`;
  if (summary.status !== lastStatus) {
    lastStatus = summary.status;
    $('stages').append(
      el('li', `${new Date().toLocaleTimeString()} ${summary.status}`, { 'data-status': summary.status }),
    );
    onStatusChange();
  }
  if (summary.status === 'mapping') showMappingChoice(summary.id);
  else $('accept-proposal').hidden = $('map-hint').hidden = true;
  $('render').hidden = summary.status !== 'ready';
  $('preset-row').hidden = summary.status !== 'ready' && summary.status !== 'complete';
  const review =
    (summary.nextAction.type === 'map_speakers' || summary.nextAction.type === 'review_or_render'
      ? summary.nextAction.url
      : null) ??
    reviewUrls.get(summary.id) ??
    null;
  const reviewLink = $<HTMLAnchorElement>('review-link');
  reviewLink.hidden = review === null;
  if (review !== null) reviewLink.href = review;
  const download = $<HTMLAnchorElement>('download');
  download.hidden = summary.outputUrl === null;
  // A plain link the service worker answers with Content-Disposition (not `download`: see downloadUrl).
  if (summary.outputUrl !== null)
    download.href = downloadUrl(summary.outputUrl, `multicam-${summary.id.slice(0, 8)}.mp4`);
  // The rendered edit plays here (the service worker answers the player's Range requests).
  const player = $<HTMLVideoElement>('player');
  player.hidden = summary.outputUrl === null;
  const renderedFile = summary.outputUrl === null ? null : new URL(summary.outputUrl).pathname;
  if (summary.outputUrl !== null && player.dataset['file'] !== renderedFile) {
    player.dataset['file'] = renderedFile!;
    player.src = summary.outputUrl;
  }
}

/** Statuses in which the page shows who is on which camera (once the camera map or a mapping is in). */
const STRIP_STATUSES = new Set(['mapping', 'ready', 'rendering', 'complete', 'approved', 'failed']);
/** The status the strip was last drawn in; it is drawn again when the job moves on. */
let stripShownAt = '';
/** The strip's content last drawn, so polling does not reload the frames. */
let stripKey = '';

/** Who is on which camera: a frame of each camera and the speakers on it, by name. */
function showCameraStrip({ job, sourceUrls }: GetJobResponse): void {
  const strip = $('camera-strip');
  if (job.camera_map === null && job.tracks.length === 0) {
    strip.hidden = true;
    return;
  }
  const cards = cameraCards(job);
  const key = JSON.stringify([job.id, cards]);
  strip.hidden = false;
  if (key === stripKey) return;
  stripKey = key;
  $('camera-cards').replaceChildren(
    ...cards.map((card) => {
      const item = el('li', undefined, { class: card.state, 'data-source': card.sourceId });
      const url = sourceUrls[card.sourceId];
      if (url) {
        // A still of the camera (the service worker answers the Range requests): never played here.
        const still = el('video', undefined, { muted: '', preload: 'auto', playsinline: '', 'aria-hidden': 'true' });
        still.muted = true;
        still.src = `${url}#t=${(card.frameMs / 1000).toFixed(2)}`;
        item.append(still);
      }
      item.append(el('div', card.label, { class: 'label' }), el('div', card.who, { class: 'who' }));
      return item;
    }),
  );
}

async function listJobs(session: DemoSession): Promise<void> {
  const response = await session.listJobs();
  const servedBy = response.headers.get('x-multicam-served-by') ?? 'network';
  log.textContent = `GET ${session.instance.basePath}/jobs → ${response.status} (served by ${servedBy})`;
  const body = (await response.json()) as { jobs?: JobListItem[]; error?: string };
  if (!response.ok || !body.jobs) throw new Error(body.error ?? `listJobs answered ${response.status}`);
  const table = $<HTMLTableElement>('jobs');
  (table.tBodies[0] as HTMLTableSectionElement).replaceChildren(
    ...body.jobs.map((job) => {
      const row = el('tr');
      for (const text of [job.id, job.title, job.status, job.created_at]) row.append(el('td', String(text ?? '')));
      return row;
    }),
  );
  table.hidden = body.jobs.length === 0;
  $('no-jobs').hidden = body.jobs.length !== 0;
}

/** What `window.multicamDemo` offers the command line and the tests. */
export interface DemoApi {
  /** Chooses files already set on the page's file inputs (the CLI sets them from disk); refused files are listed with why. */
  useInputs(): Promise<number>;
  useSample(): Promise<number>;
  start(options?: Partial<JobOptions>): Promise<string>;
  /**
   * After a reload: uses the chosen files again for a job's sources used in place (matched by
   * label and size); returns how many were given back. The job then reads them as before.
   */
  useAgain(jobId: string): Promise<number>;
  summary(): Promise<JobSummary>;
  job(): Promise<GetJobResponse>;
  /** Submits the service's camera map proposal; refuses (and says so on the page) when there is none. */
  acceptProposal(): Promise<{ tracks: number }>;
  /** Submits a mapping someone chose (the CLI's `--map`). */
  submitMapping(tracks: Track[]): Promise<void>;
  /** Whether the service asked for a mapping (the `mapping` event): before it, the cameras are still being worked out. */
  askedToMap(): boolean;
  recut(presetId: PresetId): Promise<void>;
  render(): Promise<void>;
  /** The engine's runs of the current job's stages, with each stage's figures (time per step). */
  stageRuns(): StageRunRecord[];
  /** `length` bytes of the output from `offset`, base64, through a Range request; '' past the end. */
  readOutput(offset: number, length: number): Promise<{ base64: string; total: number }>;
  /** The current job's edit exported in `format` (fcpxml, xmeml, otio, edl), defaults but `recordStart`: its text (the CLI's `--export`). */
  exportEdit(format: ExportFormat, options?: { recordStart?: string }): Promise<string>;
}

try {
  const session = await openDemoSession();
  const client = new MulticamClient({ baseUrl: session.instance.baseUrl, apiKey: session.apiKey });
  status.textContent =
    'Ready. Everything runs in this browser: your files never leave this computer (used where they are, or stored in this browser).';
  if (session.instance.storagePersisted === false)
    pageWarnings.push(
      'This browser may delete your jobs and files when space runs low: it did not agree to keep this site’s data. ' +
        'Download finished edits soon; bookmarking or installing the site can make the browser keep it.',
    );
  showWarnings([]);
  $('dev-session').textContent =
    `The service worker answers ${session.instance.baseUrl} (account ${session.accountId}).`;
  const outbox = await openEventsOutbox();
  const refreshEvents = async (): Promise<void> =>
    renderEvents(await outbox.read(session.accountId), session.accountId);
  // Events arrive in the page as they are recorded (the same bodies as the webhooks).
  const subscription = outbox.subscribe(
    async (event) => {
      const url = event.payload['reviewUrl'];
      if (typeof url === 'string') reviewUrls.set(event.jobId, url);
      // The `mapping` event: the service has worked out what it can and waits for a person.
      if (event.type === 'mapping') askedToMap.add(event.jobId);
      await refreshEvents();
    },
    { name: 'demo-page', accountId: session.accountId, pollIntervalMs: 5000 },
  );
  await subscription.ready;
  await refreshEvents();

  const requireJob = (): string => {
    if (currentJobId === null) throw new Error('no job started yet');
    return currentJobId;
  };
  const poll = async (): Promise<void> => {
    if (currentJobId === null) return;
    const summary = await client.getJobSummary(currentJobId);
    // Asked to map: is there a proposal to accept (the camera map may still be on its way)?
    if (summary.status === 'mapping' && askedToMap.has(summary.id) && proposals.get(summary.id) !== true)
      proposals.set(summary.id, proposedTracks((await client.getJob(summary.id)).job) !== null);
    showSummary(summary);
    if (STRIP_STATUSES.has(summary.status) && (summary.status === 'mapping' || stripShownAt !== summary.status)) {
      stripShownAt = summary.status;
      showCameraStrip(await client.getJob(summary.id));
    }
    await refreshEvents();
  };
  /** Creates the job from the chosen files and starts it (see DemoApi.start). */
  const startJob = async (options: Partial<JobOptions>): Promise<string> => {
    await checking;
    const opts = { ...readOptions(), ...options };
    $('stages').replaceChildren();
    lastStatus = '';
    stripShownAt = stripKey = '';
    $('camera-strip').hidden = true;
    $('job').hidden = false;
    const inPlace = opts.inPlace && chosen.some((f) => f.picked);
    $('job-plain').textContent = inPlace
      ? 'Using your files where they are (nothing is copied)…'
      : 'Uploading your files into this browser’s storage…';
    steps = new StepTracker($<HTMLOListElement>('steps'));
    const up = $('upload-progress');
    currentJobId = await createAndStartJob(
      client,
      chosen,
      opts,
      (sent, total, label) => {
        up.textContent = inPlace
          ? `Using ${formatBytes(sent)} of ${formatBytes(total)} where it is, nothing copied (${label})`
          : `Uploaded ${formatBytes(sent)} of ${formatBytes(total)} (${label})`;
        steps?.upload(sent, total);
      },
      (jobId, sourceId, picked) => session.instance.service.attachLocalFile(jobId, sourceId, picked),
    );
    await poll();
    return currentJobId;
  };
  const api: DemoApi = {
    async useInputs() {
      await addFiles(
        [
          ...fromFileList($<HTMLInputElement>('video-files').files ?? [], 'video'),
          ...fromFileList($<HTMLInputElement>('audio-files').files ?? [], 'audio'),
        ],
        true,
      );
      return chosen.length;
    },
    async useSample() {
      await addFiles(await loadManifest('/sample'), true);
      return chosen.length;
    },
    start(options = {}) {
      // One job per Start: a second click or call while the first is under way gets the same job.
      if (starting) return starting;
      $<HTMLButtonElement>('start').disabled = true;
      starting = startJob(options).finally(() => {
        starting = null;
      });
      return starting;
    },
    async useAgain(jobId) {
      await checking; // files picked a moment ago are listed once checked
      const { job } = await client.getJob(jobId);
      let given = 0;
      for (const source of job.sources.filter((s) => s.local === true)) {
        const match = chosen.find((f) => f.picked && f.label === source.label && f.file.size === source.fileSize);
        if (!match) continue;
        await session.instance.service.attachLocalFile(jobId, source.id, match.handle ?? (match.file as File));
        given++;
      }
      currentJobId = jobId;
      await poll();
      return given;
    },
    async summary() {
      const summary = await client.getJobSummary(requireJob());
      showSummary(summary);
      return summary;
    },
    job: () => client.getJob(requireJob()),
    async acceptProposal() {
      const jobId = requireJob();
      const { job } = await client.getJob(jobId);
      const proposal = proposedTracks(job);
      // Never a silent guess: without a proposal a person says who is on which camera.
      if (proposal === null)
        throw new Error(
          'The service could not tell who is on which camera from this recording. Open the review editor to say it.',
        );
      await client.submitSpeakerMapping(jobId, { tracks: proposal });
      await poll();
      return { tracks: proposal.length };
    },
    askedToMap: () => currentJobId !== null && askedToMap.has(currentJobId),
    async submitMapping(tracks) {
      await client.submitSpeakerMapping(requireJob(), { tracks });
      await poll();
    },
    async recut(presetId) {
      await client.recutJob(requireJob(), { presetId, silence: { mode: readOptions().silence } });
      await poll();
    },
    async render() {
      await client.startRender(requireJob());
      await poll();
    },
    stageRuns: () => (session.instance.engine?.history ?? []).filter((r) => r.jobId === currentJobId),
    async readOutput(offset, length) {
      const url = lastSummary?.outputUrl ?? (await client.getJobSummary(requireJob())).outputUrl;
      if (!url) throw new Error('the job has no output_url yet');
      const response = await fetch(url, { headers: { range: `bytes=${offset}-${offset + length - 1}` } });
      if (response.status === 416) return { base64: '', total: offset };
      if (!response.ok) throw new Error(`GET output_url → HTTP ${response.status}`);
      const range = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
      const bytes = new Uint8Array(await response.arrayBuffer());
      const total = range ? Number(range[1]) : bytes.length;
      // A 200 (no Range support) would carry the whole file: hand back only the asked slice.
      const slice = response.status === 206 ? bytes : bytes.subarray(offset, offset + length);
      let binary = '';
      for (let i = 0; i < slice.length; i += 0x8000) binary += String.fromCharCode(...slice.subarray(i, i + 0x8000));
      return { base64: btoa(binary), total };
    },
    exportEdit: async (format, options = {}) => (await client.exportEdit(requireJob(), format, options)).body,
  };
  (window as unknown as { multicamDemo: DemoApi }).multicamDemo = api;

  // Wiring of the page's controls to the same actions.
  const report = (e: unknown): void => showError(status, e);
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    void addFiles(fromFileList(e.dataTransfer?.files ?? [])).catch(report);
  });
  const pickButton = $<HTMLButtonElement>('pick-files');
  pickButton.hidden = openFilePicker() === undefined;
  pickButton.addEventListener('click', () => void pickWithHandles().catch(report));
  $('video-files').addEventListener('change', () => void api.useInputs().catch(report));
  $('audio-files').addEventListener('change', () => void api.useInputs().catch(report));
  const useSample = $<HTMLButtonElement>('use-sample');
  const sampleTitle = await manifestTitle('/sample');
  useSample.disabled = sampleTitle === null;
  $('sample-title').textContent = sampleTitle ?? 'not built: run npm run demo (it makes the sample)';
  useSample.addEventListener('click', () => void api.useSample().catch(report));
  const givenTitle = await manifestTitle('/sample/given');
  if (givenTitle !== null) {
    $('given-row').hidden = false;
    $('given-title').textContent = givenTitle;
    $('use-given').addEventListener(
      'click',
      () =>
        void loadManifest('/sample/given')
          .then((files) => addFiles(files, true))
          .catch(report),
    );
  }
  $('start').addEventListener('click', () => {
    // Disabled at once, so a double click makes one job; enabled again only if it failed.
    $<HTMLButtonElement>('start').disabled = true;
    void api.start().catch((error: unknown) => {
      report(error);
      $<HTMLButtonElement>('start').disabled = !enoughVideos();
    });
  });
  $('accept-proposal').addEventListener('click', () => void api.acceptProposal().catch(report));
  $('render').addEventListener('click', () => void api.render().catch(report));
  $('recut').addEventListener(
    'click',
    () => void api.recut($<HTMLSelectElement>('opt-preset').value as PresetId).catch(report),
  );
  const refresh = $<HTMLButtonElement>('refresh');
  const newKey = $<HTMLButtonElement>('new-key');
  refresh.disabled = false;
  newKey.disabled = false;
  refresh.addEventListener('click', () => void listJobs(session).catch(report));
  newKey.addEventListener('click', () => {
    session
      .createApiKey()
      .then(({ apiKey }) => ($('new-key-value').textContent = apiKey))
      .catch(report);
  });
  onStatusChange = () => void listJobs(session).catch(report);
  // The summary is polled once a second while a job is not settled, and every 5 s once it is
  // complete (a person may approve it, or render again, in the review editor's tab); the outbox
  // (delivery attempts go on after the job settles) every second regardless.
  let tick = 0;
  setInterval(() => {
    tick++;
    const current = lastSummary !== null && lastSummary.id === currentJobId ? lastSummary : null;
    const due = current === null || !isSettled(current) || (current.status === 'complete' && tick % 5 === 0);
    if (currentJobId !== null && due) void poll().catch(report);
    else void refreshEvents().catch(report);
  }, 1000);
  await listJobs(session);
  document.body.dataset['ready'] = '1';
} catch (error) {
  showError(status, error);
  document.body.dataset['ready'] = 'error';
}
