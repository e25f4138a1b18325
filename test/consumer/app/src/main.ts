// A minimal app that embeds multicam, as the README's "Use it from a web app" shows: start the
// library in the page (service worker + engine), make an account, and run a job through the
// REST contract with the typed client: create, upload, process, map, render, download.
import { MulticamClient, type Job, type JobSummary, type Track } from 'multicam';
import { startMulticam } from 'multicam/dom';

const status = document.querySelector<HTMLParagraphElement>('#status')!;
const input = document.querySelector<HTMLInputElement>('#files')!;
const button = document.querySelector<HTMLButtonElement>('#edit')!;
const download = document.querySelector<HTMLAnchorElement>('#download')!;
const say = (text: string): void => {
  status.textContent = text;
};

// ?ffmpeg: use the optional ffmpeg core the app serves at /wasm/ (multicam({ ffmpeg: true })).
const ffmpeg = new URLSearchParams(location.search).has('ffmpeg');
let client: MulticamClient;
try {
  const multicam = await startMulticam({ engine: true, ...(ffmpeg ? { assets: { ffmpegWasmBase: '/wasm/' } } : {}) });
  const { apiKey } = await multicam.accounts.create({ name: 'consumer app' });
  client = new MulticamClient({ baseUrl: multicam.baseUrl, apiKey });
} catch (error) {
  say(`failed: ${error instanceof Error ? error.message : String(error)}`);
  document.body.dataset['ready'] = '0';
  throw error;
}

/**
 * The mapping this app confirms: the service's camera map where it names speakers; else (a
 * short recording leaves it unsure) camera i gets speaker i and the rest get everyone.
 */
function tracksFrom(job: Job): Track[] {
  const cameras = job.camera_map?.cameras ?? [];
  if (cameras.some((c) => c.speakers.length > 0))
    return cameras.map((c) => ({ sourceId: c.sourceId, speakers: [...c.speakers] }));
  const speakers = job.camera_map?.speakers ?? [...new Set(job.turns.map((t) => t.speaker))].sort();
  return job.sources
    .filter((s) => s.kind === 'video')
    .map((s, i) => ({ sourceId: s.id, speakers: i < speakers.length ? [speakers[i]!] : [...speakers] }));
}

async function edit(files: File[]): Promise<Job> {
  const created = await client.createJob({
    title: 'consumer app',
    sources: files.map((f) => ({ label: f.name, kind: 'video', ext: 'mp4', fileSize: f.size })),
    // The service maps speakers to cameras itself; a review step ('ready') comes before the render.
    autoMap: 'always',
    review: true,
  });
  const ids = Object.keys(created.uploads);
  for (const [i, id] of ids.entries()) {
    const upload = created.uploads[id]!;
    const file = files[i]!;
    say(`uploading ${file.name}`);
    if (upload.method === 'put') await client.upload(upload.url, file);
    else {
      for (const [part, url] of upload.urls.entries())
        await client.upload(url, file.slice(part * upload.partSize, (part + 1) * upload.partSize));
      await client.completeMultipartUpload({ key: upload.key, uploadId: upload.uploadId });
    }
  }
  await client.startProcessing(created.jobId);
  let mapped = false;
  let rendering = false;
  for (;;) {
    const summary: JobSummary = await client.getJobSummary(created.jobId);
    say(`${summary.status}${summary.progress === null ? '' : ` ${Math.round(summary.progress * 100)} %`}`);
    if (summary.status === 'failed') throw new Error(summary.error ?? 'the job failed');
    if (summary.status === 'mapping' && summary.nextAction.type === 'map_speakers' && !mapped) {
      mapped = true;
      const { job } = await client.getJob(created.jobId);
      await client.submitSpeakerMapping(created.jobId, { tracks: tracksFrom(job) });
    }
    if (summary.status === 'ready' && !rendering) {
      rendering = true;
      await client.startRender(created.jobId);
    }
    if (summary.status === 'complete') return (await client.getJob(created.jobId)).job;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

input.addEventListener('change', () => {
  button.disabled = (input.files?.length ?? 0) < 2;
});
button.addEventListener('click', () => {
  button.disabled = true;
  edit([...(input.files ?? [])])
    .then((job) => {
      // A plain link with `download=<name>` (the service answers Content-Disposition: attachment),
      // not the `download` attribute: Chromium does not send an <a download> click through the
      // service worker, so the server's index.html would be saved instead (docs/contract.md).
      const url = new URL(job.output_url!, location.href);
      url.searchParams.set('download', 'edit.mp4');
      download.href = url.href;
      download.hidden = false;
      download.dataset['format'] = JSON.stringify(job.output_format);
      say('complete');
    })
    .catch((error: unknown) => say(`failed: ${error instanceof Error ? error.message : String(error)}`));
});
say('ready');
document.body.dataset['ready'] = '1';
