/**
 * The rendering stage: the render worker's `renderEdit` over the job's cuts and removed
 * ranges, streamed into the store as it is produced. The sink is append-only
 * (`sequential: true`), so the render writes a fragmented MP4 strictly in order and each
 * 8 MiB of output goes to IndexedDB as soon as it is complete: memory stays flat however long
 * the footage. See docs/decisions/006-render.md ("Streaming into the store").
 *
 * @module
 */
import { AUDIO_DEFAULTS, type OutputLevels, type SourceGain } from '../../contract/types.ts';
import type { MixLevels } from '../../render/audio-mix.ts';
import type { RenderAudioOptions, RenderSink, RenderSource } from '../../render/protocol.ts';
import type { JobRecord } from '../../store/db.ts';
import type { Database } from '../../store/db.ts';
import { withFragmentedDuration } from '../../media/fmp4-duration.ts';
import { createFileWriter, openFileBlob, rewriteFileStart, type FileWriter } from '../../store/files.ts';
import { LocalFileUnavailableError } from '../../store/local-files.ts';
import { sourceName, type StageRunner } from './context.ts';

/**
 * An append-only render sink that writes into a stored file. A write at any position other
 * than the end is refused: with `sequential` set the muxer never patches earlier bytes.
 */
export class StoreSink implements RenderSink {
  readonly sequential = true;
  private readonly writer: FileWriter;
  private fileId: string | null = null;

  constructor(db: Database, type: string, now: number) {
    this.writer = createFileWriter(db, type, now);
  }

  async write(data: Uint8Array, position: number): Promise<void> {
    if (position !== this.writer.size)
      throw new Error(
        `render output: a write at byte ${position} but ${this.writer.size} bytes are written (the stored output is append-only)`,
      );
    await this.writer.write(data);
  }

  async close(): Promise<void> {
    this.fileId = await this.writer.close();
  }

  async abort(): Promise<void> {
    await this.writer.abort();
  }

  /** Bytes written so far. */
  get size(): number {
    return this.writer.size;
  }

  /** The stored file's id once closed, else null. */
  get storedFileId(): string | null {
    return this.fileId;
  }
}

/** Runs the rendering stage of one job. */
export const runRendering: StageRunner<'rendering'> = async ({ db, job, workers, assets, signal, onProgress }) => {
  const sources: RenderSource[] = [];
  for (const source of job.sources) {
    if (source.fileId === null)
      return {
        ok: false,
        failure: { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true },
      };
    let blob: Blob;
    try {
      blob = await openFileBlob(db, source.fileId);
    } catch (error) {
      // Not permanent: a read error of the store may pass, and retryJob must be able to try again.
      return {
        ok: false,
        failure: {
          message: `source ${sourceName(job, source)} cannot be read${error instanceof LocalFileUnavailableError ? '' : ' from storage'}: ${(error as Error).message}`,
        },
      };
    }
    sources.push({
      id: source.id,
      kind: source.kind === 'audio' ? 'audio' : 'video',
      blob,
      offsetMs: source.offsetMs ?? 0,
      driftPpm: source.driftPpm ?? 0,
      durationMs: source.durationMs ?? 0,
    });
  }
  const sink = new StoreSink(db, 'video/mp4', Date.now());
  try {
    const result = await workers.render().render(
      {
        cuts: job.cuts,
        removedRanges: job.removedRanges ?? [],
        sources,
        ...(assets.ffmpegWasmBase === undefined ? {} : { ffmpeg: { wasmBase: assets.ffmpegWasmBase } }),
        ...audioOptions(job),
      },
      { sink, onProgress: (p) => onProgress(p.fraction), signal },
    );
    const fileId = sink.storedFileId;
    if (fileId === null) throw new Error('render output: the render finished without closing its output');
    // The fragmented MP4's length, known now, into its header (Firefox's player shows only the
    // fragments it has loaded otherwise): same bytes, nothing after the moov moves.
    if (result.container === 'mp4')
      await rewriteFileStart(db, fileId, (head) => withFragmentedDuration(head, result.durationMs / 1000));
    return {
      ok: true,
      output: {
        output: { fileId },
        type: result.mimeType,
        format: {
          container: result.container,
          video_codec: result.videoCodec === 'avc' ? 'h264' : result.videoCodec,
          audio_codec: result.audioCodec,
          audio_encoder: result.audioEncoder,
          note: null,
          loudness: result.loudness
            ? {
                integrated_lufs: result.loudness.integratedLufs,
                loudness_range_lu: result.loudness.lraLu,
                max_short_term_lufs: result.loudness.maxShortTermLufs,
                true_peak_dbtp: result.loudness.truePeakDbtp,
                sample_peak_dbfs: result.loudness.samplePeakDbfs,
              }
            : null,
          levels: result.levels ? outputLevels(result.levels) : null,
        },
      },
      metrics: {
        bytes: sink.size,
        frames: result.frames,
        renderMs: Math.round(result.elapsedMs),
        audio: `${result.audioCodec ?? 'none'} (${result.audioEncoder ?? '-'})`,
      },
    };
  } catch (error) {
    // Failed or cancelled: the partial output is deleted here (the worker may not reach `abort`).
    await sink.abort().catch(() => undefined);
    throw error;
  }
};

/**
 * The render's mastering from the job's `audio` settings (defaults on jobs from before) and its
 * turns; the render finds from the audio which mic is whose (the job's tracks map speakers to
 * cameras, not to mics). `loudness: 'off'`: no mastering. The gains a person set per source go
 * along either way.
 */
export function audioOptions(job: Pick<JobRecord, 'audio' | 'audioGains' | 'turns'>): {
  audio?: RenderAudioOptions;
  audioGains?: Record<string, SourceGain>;
} {
  const settings = job.audio ?? AUDIO_DEFAULTS;
  const gains = job.audioGains && Object.keys(job.audioGains).length > 0 ? { audioGains: { ...job.audioGains } } : {};
  if (settings.loudness === 'off') return gains;
  const turns = job.turns.map((t) => ({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs }));
  return { audio: { loudnessLufs: settings.loudness, truePeakDbtp: settings.truePeak, turns }, ...gains };
}

/** The Job's view of what the mastering did (snake_case, as the Job is). */
export function outputLevels(levels: MixLevels): OutputLevels {
  return {
    target_lufs: levels.targetLufs,
    true_peak_ceiling_dbtp: levels.truePeakDbtp,
    master_gain_db: levels.masterGainDb,
    limiter_max_reduction_db: levels.limiterMaxReductionDb,
    sources: levels.sources.map((s) => ({
      source_id: s.sourceId,
      source_gain_db: s.sourceGainDb,
      integrated_lufs_before: s.integratedLufsBefore,
      integrated_lufs_after: s.integratedLufsAfter,
      speakers: s.speakers.map((k) => ({
        speaker: k.speaker,
        speech_lufs_before: k.speechLufsBefore,
        speech_lufs_after: k.speechLufsAfter,
        gain_db: k.gainDb,
        ride_db: k.rideDb,
        speech_sec: k.speechSec,
      })),
    })),
  };
}
