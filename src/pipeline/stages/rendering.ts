/**
 * The rendering stage: the render worker's `renderEdit` over the job's cuts and removed
 * ranges, written to a sink that honours the muxer's positioned writes.
 *
 * @module
 */
import type { RenderSink, RenderSource } from '../../render/protocol.ts';
import { openFileBlob } from '../../store/files.ts';
import { sourceName, type StageRunner } from './context.ts';

/** A sink that keeps positioned writes in order (a later write at an earlier position patches it). */
export class PatchingSink implements RenderSink {
  private readonly pieces: Uint8Array[] = [];
  private size = 0;
  write(data: Uint8Array, position: number): void {
    if (position > this.size) {
      this.pieces.push(new Uint8Array(position - this.size));
      this.size = position;
    }
    let offset = 0;
    let at = 0;
    for (const piece of this.pieces) {
      if (offset >= data.length) break;
      const end = at + piece.length;
      if (position + offset < end && position + offset >= at) {
        const start = position + offset - at;
        const n = Math.min(piece.length - start, data.length - offset);
        piece.set(data.subarray(offset, offset + n), start);
        offset += n;
      }
      at = end;
    }
    if (offset < data.length) {
      this.pieces.push(data.slice(offset));
      this.size += data.length - offset;
    }
  }
  close(): void {}
  /** The written file. */
  blob(type: string): Blob {
    return new Blob(this.pieces as BlobPart[], { type });
  }
}

/** Runs the rendering stage of one job. */
export const runRendering: StageRunner<'rendering'> = async ({ db, job, workers, signal, onProgress }) => {
  const sources: RenderSource[] = [];
  for (const source of job.sources) {
    if (source.fileId === null) return { ok: false, failure: { message: `source ${sourceName(job, source)} has no uploaded file`, permanent: true } };
    sources.push({
      id: source.id,
      kind: source.kind === 'audio' ? 'audio' : 'video',
      blob: await openFileBlob(db, source.fileId),
      offsetMs: source.offsetMs ?? 0,
      driftPpm: source.driftPpm ?? 0,
      durationMs: source.durationMs ?? 0,
    });
  }
  const sink = new PatchingSink();
  const result = await workers.render().render(
    { cuts: job.cuts, removedRanges: job.removedRanges ?? [], sources },
    { sink, onProgress: (p) => onProgress(p.fraction), signal },
  );
  return { ok: true, output: { output: sink.blob(result.mimeType), type: result.mimeType } };
};
