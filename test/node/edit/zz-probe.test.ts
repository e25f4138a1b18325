import { test } from 'vitest';
import type { Turn } from '../../../src/contract/types.ts';
import { planEdit, resolveSilence } from '../../../src/analysis/edit.ts';
import { quietRanges, sources, tracks, turns } from './scripted.ts';
const v = (id: string, durationMs: number, offsetMs = 0) => ({ id, label: id, kind: 'video' as const, ext: 'mp4', durationMs, offsetMs });
const t = (speaker: string, a: number, b: number): Turn => ({ speaker, startMs: a, endMs: b });
const off = resolveSilence(null);
const show = (name: string, r: { cuts: unknown[] }) => console.log(name + '\n' + r.cuts.map((c) => JSON.stringify(c)).join('\n'));
test('probe', () => {
  show('nobody', planEdit({ turns: [], tracks: [{ sourceId: 'empty', speakers: [] }, { sourceId: 'a', speakers: ['A'] }, { sourceId: 'w', speakers: ['A', 'B'] }], sources: [v('a', 10000), v('w', 10000), v('empty', 10000)], cameraMap: null, presetId: 'balanced', silence: off }));
  const tr3 = [{ sourceId: 'a', speakers: ['A'] }, { sourceId: 'b', speakers: ['B'] }, { sourceId: 'w', speakers: ['A', 'B'] }];
  show('quick', planEdit({ turns: [t('A', 0, 10000), t('B', 10000, 11000), t('A', 11000, 12000), t('B', 12000, 13000), t('A', 13000, 14000), t('B', 14000, 30000)], tracks: tr3, sources: [v('a', 30000), v('b', 30000), v('w', 30000)], cameraMap: null, presetId: 'balanced', silence: off }));
  show('late', planEdit({ turns: [t('A', 0, 15000), t('B', 15000, 30000)], tracks: tr3, sources: [v('a', 26000, 4000), v('b', 30000), v('w', 30000)], cameraMap: null, presetId: 'balanced', silence: off }));
  show('mono', planEdit({ turns: [t('A', 0, 40000)], tracks: [{ sourceId: 'a', speakers: ['A'] }, { sourceId: 'ab', speakers: ['A', 'B'] }, { sourceId: 'w', speakers: ['A', 'B', 'C'] }], sources: [v('a', 40000), v('ab', 40000), v('w', 40000)], cameraMap: null, presetId: 'dynamic', silence: off }));
  show('pause', planEdit({ turns: [t('A', 0, 18000), t('B', 24000, 40000)], tracks: tr3, sources: [v('a', 40000), v('b', 40000), v('w', 40000)], cameraMap: null, presetId: 'balanced', silence: off }));
  show('scripted', planEdit({ turns, tracks, sources, cameraMap: null, presetId: 'balanced', silence: off, quietRanges }));
});
