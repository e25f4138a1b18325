/**
 * Browser-test page for voice activity: exposes `window.vad.run`, which runs Silero VAD in a
 * fresh worker (vad.worker.ts: the engine's loading code) on a served raw float32 signal, and
 * `window.vad.diarize`, which runs the engine's analysis worker itself on served channels.
 * Driven by tools/diarization/chromium-vad.ts (test/browser/vad.test.ts, bench/diarize/run.ts).
 */
import { transfer, wrap } from 'comlink';
import {
  recordedLevels,
  SourceEnergies,
  type RecordedLevelsResult,
} from '../../../src/analysis/audio/recorded-levels.ts';
import { envelopeDb, findQuietRanges } from '../../../src/analysis/speech/energy.ts';
import { toReferenceTimeline } from '../../../src/analysis/sync/reference-timeline.ts';
import { mixDown } from '../../../src/analysis/signal/signal-mix.ts';
import { SCRATCH_PREFIX } from '../../../src/media/scratch.ts';
import type { AnalysisWorkerApi, DiarizeOutcome } from '../../../src/speakers/protocol.ts';
import { monoWavBlob } from '../../../src/media/wav.ts';
import type { VadPageOptions, VadPageRun, VadWorkerApi } from './vad.worker.ts';

async function run(inputUrl: string, options: VadPageOptions): Promise<VadPageRun> {
  // A worker per run: onnxruntime's thread count is fixed by its first session.
  const worker = new Worker(new URL('./vad.worker.ts', import.meta.url), { type: 'module' });
  try {
    return await wrap<VadWorkerApi>(worker).run(inputUrl, options);
  } finally {
    worker.terminate();
  }
}

/** What {@link diarize} returns: the analysis worker's outcome and its wall time on the page. */
export interface PageDiarizeRun {
  outcome: DiarizeOutcome;
  ms: number;
  /** The job's audio against the mix made here from the same channels, and the scratch folder. */
  mix?: {
    sameWav: boolean;
    sameQuietRanges: boolean;
    /** The folder that held the WAV (per-mic), or null. */
    scratch: string | null;
    /** Diarize scratch entries in the private file system when the call returned, and after dropScratch. */
    entries: string[];
    entriesAfterDrop: string[];
    /** The recorded levels the worker measured, and those measured here on the channels in memory with its turns. */
    levels: RecordedLevelsResult;
    levelsHere: RecordedLevelsResult;
  };
}

/** The diarize scratch folders in the origin's private file system, with their files. */
async function scratchEntries(): Promise<string[]> {
  type Dir = FileSystemDirectoryHandle & { entries(): AsyncIterable<[string, FileSystemHandle]> };
  const root = (await navigator.storage.getDirectory()) as Dir;
  const out: string[] = [];
  for await (const [name, handle] of root.entries()) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    out.push(`${name}/`);
    if (handle.kind === 'directory')
      for await (const [child] of (handle as Dir).entries()) out.push(`${name}/${child}`);
  }
  return out.sort();
}

/**
 * The engine's analysis worker (a fresh one) diarizing served raw float32 channels, as the
 * diarizing stage calls it. `abortAfterMs` aborts the call that long after it starts.
 */
async function diarize(
  inputUrls: string[],
  options: {
    vadLanes?: number;
    vadGate?: boolean;
    vadBleedGate?: boolean;
    abortAfterMs?: number;
    keepInMemory?: boolean;
  } = {},
): Promise<PageDiarizeRun> {
  const channels = await Promise.all(
    inputUrls.map(async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return new Float32Array(await response.arrayBuffer());
    }),
  );
  // Kept to check the job's audio against (the channels themselves are transferred).
  const copies = channels.map((c) => c.slice());
  const worker = new Worker(new URL('../../../workers/analysis.worker.ts', import.meta.url), {
    type: 'module',
  });
  const analysis = wrap<AnalysisWorkerApi>(worker);
  try {
    // Channels already on the reference timeline: offset 0, no drift, as long as they are.
    const request = {
      sources: channels.map((samples) => ({ samples, sampleRate: 16000, offsetMs: 0, driftPpm: 0 })),
      lengthMs: ((channels[0]?.length ?? 0) * 1000) / 16000,
      sampleRate: 16000,
      modelUrl: new URL('/models/silero_vad_v6.onnx', location.origin).href,
      ortWasmPath: new URL('/wasm/ort/', location.origin).href,
      ...(options.vadLanes !== undefined ? { vadLanes: options.vadLanes } : {}),
      ...(options.vadGate !== undefined ? { vadGate: options.vadGate } : {}),
      ...(options.vadBleedGate !== undefined ? { vadBleedGate: options.vadBleedGate } : {}),
      ...(options.keepInMemory ? { keepInMemory: true } : {}),
    };
    const t0 = performance.now();
    const call = analysis.diarizeSources(
      transfer(
        request,
        channels.map((c) => c.buffer),
      ),
      'page',
    );
    if (options.abortAfterMs !== undefined) setTimeout(() => void analysis.abort('page'), options.abortAfterMs);
    const sourcesOutcome = await call;
    const ms = performance.now() - t0;
    let mix: PageDiarizeRun['mix'];
    if (sourcesOutcome.ok) {
      const placed = copies.map((c) => toReferenceTimeline(c, 16000, 0, 0, request.lengthMs));
      const mixed = placed.length > 1 ? mixDown(placed) : placed[0]!;
      const expected = new Uint8Array(await monoWavBlob(mixed, 16000).arrayBuffer());
      const got = new Uint8Array(await sourcesOutcome.audio.arrayBuffer());
      const entries = await scratchEntries();
      if (sourcesOutcome.scratch) await analysis.dropScratch(sourcesOutcome.scratch);
      const energies = new SourceEnergies(placed.length, 16000);
      placed.forEach((channel, i) => energies.push(i, channel));
      const turns = sourcesOutcome.result.kind === 'speakers' ? sourcesOutcome.result.turns : [];
      mix = {
        levels: sourcesOutcome.levels,
        levelsHere: recordedLevels(energies.finish(), turns),
        sameWav: expected.length === got.length && expected.every((b, i) => b === got[i]),
        sameQuietRanges:
          JSON.stringify(findQuietRanges(envelopeDb(mixed, 16000))) === JSON.stringify(sourcesOutcome.mix.quietRanges),
        scratch: sourcesOutcome.scratch ?? null,
        entries,
        entriesAfterDrop: await scratchEntries(),
      };
    }
    // The WAV of the mix stays on the page (a Blob does not cross to the test).
    const outcome: DiarizeOutcome = sourcesOutcome.ok
      ? (({ audio: _audio, prepareMs: _prepareMs, scratch: _scratch, levels: _levels, ...rest }) => rest)(
          sourcesOutcome,
        )
      : sourcesOutcome;
    return { outcome, ms, ...(mix ? { mix } : {}) };
  } finally {
    worker.terminate();
  }
}

declare global {
  interface Window {
    vad: { run: typeof run; diarize: typeof diarize; scratchEntries: typeof scratchEntries };
  }
}
window.vad = { run, diarize, scratchEntries };
document.body.dataset['ready'] = '1';
