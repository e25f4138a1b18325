/**
 * Cost of the pure map on a 3-hour recording: 3 cameras sampled with runs of 15 frames every
 * 6 s (27 000 samples each), 4 speakers. Synthetic motion (test/node/camera/synthetic.ts).
 *
 *   npx tsx bench/camera/map-cost.ts [--hours 3]
 */
import { parseArgs } from 'node:util';
import { computeCameraMap } from '../../src/analysis/camera/camera-map.ts';
import { conversation, syntheticSamples } from '../../test/node/camera/synthetic.ts';

const { values } = parseArgs({ options: { hours: { type: 'string', default: '3' } } });
const durationMs = Number(values.hours) * 3600_000;
const speakers = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02', 'SPEAKER_03'];
const turns = conversation(speakers, durationMs, 5);
const sample = { durationMs, everyMs: 6000, framesPerRun: 15 };
const cameras = [
  {
    sourceId: 'a',
    samples: syntheticSamples({ kind: 'closeup', speaker: 'SPEAKER_00' }, turns, { ...sample, seed: 1 }),
  },
  {
    sourceId: 'b',
    samples: syntheticSamples({ kind: 'twoshot', left: 'SPEAKER_01', right: 'SPEAKER_02' }, turns, {
      ...sample,
      seed: 2,
    }),
  },
  {
    sourceId: 'c',
    samples: syntheticSamples({ kind: 'wide', left: 'SPEAKER_03', middle: 'SPEAKER_00', right: 'SPEAKER_01' }, turns, {
      ...sample,
      seed: 3,
    }),
  },
];
const t0 = performance.now();
const map = computeCameraMap({ cameras, turns });
const ms = performance.now() - t0;
console.log(
  `${values.hours} h, ${turns.length} turns, ${cameras[0]!.samples.t.length} samples per camera: computeCameraMap ${(ms / 1000).toFixed(2)} s`,
);
console.log(map.cameras.map((c) => `${c.sourceId}=${c.kind}/${c.confidence}[${c.speakers.join(',')}]`).join(' '));
