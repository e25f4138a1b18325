/**
 * The residual lane: a VAD lane (workers/vad-lane.worker.ts) that measures half of a per-mic
 * job's crosstalk residuals beside the analysis worker, in shared memory. The analysis worker
 * waits on it without yielding (`Atomics.wait`) and takes the share back when the lane does not
 * take it in time or goes quiet (the {@link ResidualShare} states).
 *
 * @module
 */
import { transfer, wrap } from 'comlink';
import { fineFrames, residualLevelsRead, type ResidualHelper } from '../analysis/diarize/residual-levels.ts';
import { ScratchSamples, type ScratchSpace } from '../media/scratch.ts';
import { ResidualShare, type VadLaneApi } from './protocol.ts';
import type { HeldRequest } from './signals.ts';
import { lanesWanted, startLaneWorker } from './vad-lanes.ts';

/** How long a share of the residuals may wait to be taken, and a lane that took one may go quiet, ms. */
const SHARE_START_MS = 10_000;
const SHARE_STALL_MS = 30_000;

/** A started residual lane; `used` says whether it measured its share, and from what. */
export interface ResidualLane {
  helper: Promise<ResidualHelper>;
  used(): 'files' | 'copies' | null;
  close(): void;
}

/**
 * Waits, without yielding, until the lane has measured its share (true) or cannot (false: it
 * failed, did not take it in time, or went quiet; the share is then withdrawn).
 */
function awaitShare(state: Int32Array): boolean {
  let beat = Atomics.load(state, 1);
  let since = performance.now();
  for (;;) {
    const now = performance.now();
    const at = Atomics.load(state, 0);
    if (at === ResidualShare.done) return true;
    if (at === ResidualShare.failed || at === ResidualShare.withdrawn) return false;
    const b = Atomics.load(state, 1);
    if (b !== beat) {
      beat = b;
      since = now;
    } else if (now - since > (at === ResidualShare.waiting ? SHARE_START_MS : SHARE_STALL_MS)) {
      if (Atomics.compareExchange(state, 0, at, ResidualShare.withdrawn) === at) return false;
      continue;
    }
    Atomics.wait(state, 0, at, 1000);
  }
}

/**
 * Starts a lane that measures half of the crosstalk residuals beside this worker; `null` where
 * memory cannot be shared (not cross-origin isolated) or one core does it all.
 */
export function residualLane(request: HeldRequest, scratch: ScratchSpace | null): ResidualLane | null {
  if (request.channels.length < 2 || lanesWanted(request) < 2) return null;
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer === 'undefined') return null;
  const worker = startLaneWorker();
  const remote = wrap<VadLaneApi>(worker);
  let used: 'files' | 'copies' | null = null;
  const helper: ResidualHelper = (job) => {
    const n = job.channels.length;
    const fine = fineFrames(job.sampleRate, job.from, job.length);
    const shared = new SharedArrayBuffer(8 * n * (job.frames + fine));
    const out = {
      coarse: job.channels.map((_, i) => new Float64Array(shared, 8 * i * job.frames, job.frames)),
      fine: job.channels.map((_, i) => new Float64Array(shared, 8 * (n * job.frames + i * fine), fine)),
    };
    const state = new Int32Array(new SharedArrayBuffer(8));
    const { channels, ...rest } = job;
    // Channels in files this worker opened read-only: the lane opens them too and reads its
    // share a piece at a time (an hour's share of three mics is 0.35 GB). Else it gets copies.
    const files = scratch && channels.every((c) => c instanceof ScratchSamples && c.readOnly);
    if (files) {
      const names = channels.map((c) => (c as ScratchSamples).name);
      remote.residualLevelsFromFiles({ ...rest, out }, { folder: scratch.name, names }, state).catch(() => undefined);
    } else {
      // The lane's own copies of its share, transferred (a view would clone the whole channel).
      const origin = Math.max(0, job.from - 2 * job.weights.hop);
      const copies = channels.map((c) => c.read(origin, job.length).slice());
      remote
        .residualLevels(
          transfer(
            { ...rest, channels: copies, origin, out },
            copies.map((c) => c.buffer),
          ),
          state,
        )
        .catch(() => undefined);
    }
    return () => {
      const measured = awaitShare(state);
      used = measured ? (files ? 'files' : 'copies') : null;
      return measured ? out : residualLevelsRead(job);
    };
  };
  // A lane that never answers gives no helper: this worker then measures it all.
  const helper$ = Promise.race([
    remote.ready().then(() => helper),
    new Promise<ResidualHelper>((resolve) => setTimeout(() => resolve(() => null), SHARE_START_MS)),
  ]);
  worker.addEventListener('error', () => undefined);
  return {
    helper: helper$,
    used: () => used,
    close: () => worker.terminate(),
  };
}
