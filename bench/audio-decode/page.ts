/**
 * The audio-decode bench page: hands the picked file to the bench worker, which times each
 * phase of the media worker's audio path. Driven by bench/audio-decode/run.ts.
 *
 * @module
 */
import { wrap } from 'comlink';
import type { AudioDecodeBenchApi } from './worker.ts';

const worker = wrap<AudioDecodeBenchApi>(new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }));
(window as unknown as { benchPhases: (rate: number) => Promise<unknown> }).benchPhases = (rate) => {
  const file = (document.getElementById('file') as HTMLInputElement).files?.[0];
  if (!file) throw new Error('no file picked');
  return worker.phases(file, rate);
};
document.body.dataset['ready'] = '1';
