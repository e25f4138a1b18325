/**
 * The render worker in a real Chromium: the tiny fixture's three cameras, a cut list switching
 * among them every few seconds and two removed ranges, rendered to H.264 + AAC-LC MP4 in the
 * worker (Linux Chromium has no WebCodecs AAC encoder: the bundled WebAssembly one makes it). The output must play in a <video>, last the kept timeline ± 1 frame (Chromium and
 * Debian's ffprobe), show at the middle of each segment the camera marker the cut names, and
 * have no click at the joins (decoded by Debian's ffmpeg).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { PageRenderOptions, PageRenderSummary } from '../../bench/render/render-site.ts';
import type { TimeRange } from '../../src/contract/types.ts';
import { clickScore, decodeAudio, decodeRgbFrame, readMarker } from '../support/audio-analysis.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../support/fixtures.ts';
import { LoudnessMeter } from '../../src/analysis/audio/loudness.ts';
import { patient } from '../support/patience.ts';
import { ffprobe, OUT, useTinyRenderPage } from '../support/render-page.ts';

const rp = useTinyRenderPage();
const { cameras, sources, edit, render } = rp;

describe('render of the tiny fixture', () => {
  let summary: PageRenderSummary;
  let file: string;

  beforeAll(async () => {
    summary = await render();
    if (summary.error) throw new Error(`${summary.error.name}: ${summary.error.message}`);
    file = join(OUT, 'tiny.mp4');
    writeFileSync(file, Buffer.from(summary.fileBase64!, 'base64'));
    const r = summary.result!;
    console.log(
      `render: ${r.frames} frames ${r.width}×${r.height}@${r.fps} ${r.videoCodecString} + ${r.audioCodec} (${r.audioEncoder}), ${r.bytes} bytes, ${r.elapsedMs.toFixed(0)} ms (${((r.frames / r.elapsedMs) * 1000).toFixed(1)} fps), ${summary.writes} sink writes`,
    );
  }, patient(180_000));

  test('the output plays in a <video> and lasts the kept timeline ± 1 frame', () => {
    const r = summary.result!;
    const frameMs = 1000 / r.fps;
    expect(r.container).toBe('mp4');
    expect(r.videoCodec).toBe('avc');
    expect(r.audioCodec).toBe('aac');
    // The browser's own AAC encoder where it has one, else the bundled WebAssembly one (Linux Chromium).
    expect(['webcodecs', 'aac-wasm']).toContain(r.audioEncoder);
    expect(summary.sinkClosed).toBe(true);
    expect(summary.sinkAborted).toBeNull();
    expect(Math.abs(r.durationMs - r.keptMs)).toBeLessThanOrEqual(frameMs);
    expect(summary.video).toMatchObject({ width: 640, height: 360 });
    const v = summary.video as { duration: number };
    expect(Math.abs(v.duration * 1000 - r.keptMs)).toBeLessThanOrEqual(frameMs);
    const { cuts, removedRanges } = edit();
    const covered =
      cuts.reduce((s, c) => s + c.endMs - c.startMs, 0) - removedRanges.reduce((s, x) => s + x.endMs - x.startMs, 0);
    expect(Math.abs(r.keptMs - covered)).toBeLessThan(1e-6);
  });

  test('progress runs from 0 to 1', () => {
    const p = summary.progress;
    expect(p.length).toBeGreaterThan(5);
    for (let i = 1; i < p.length; i++) expect(p[i]!).toBeGreaterThanOrEqual(p[i - 1]!);
    expect(p[0]).toBe(0);
    expect(p.at(-1)).toBe(1);
  });

  test('ffprobe agrees: H.264 High + AAC-LC, frame count and duration within 1 frame', () => {
    const r = summary.result!;
    const info = ffprobe(file);
    const v = info.streams.find((s) => s.codec_type === 'video')!;
    const a = info.streams.find((s) => s.codec_type === 'audio')!;
    expect(v).toMatchObject({ codec_name: 'h264', profile: 'High', width: 640, height: 360 });
    expect(a).toMatchObject({ codec_name: 'aac', profile: 'LC', sample_rate: '48000' });
    expect(Number(v.nb_read_frames)).toBe(r.frames);
    expect(Math.abs(Number(v.duration) * 1000 - r.keptMs)).toBeLessThanOrEqual(1000 / r.fps);
    expect(Math.abs(Number(a.duration) * 1000 - r.keptMs)).toBeLessThanOrEqual(1000 / r.fps);
  });

  test("the loudness the render reports is native ffmpeg's ebur128 reading of the file (within what AAC moves)", () => {
    const loudness = summary.result!.loudness!;
    const res = spawnSync('ffmpeg', [
      '-nostats',
      '-hide_banner',
      '-i',
      file,
      '-af',
      'ebur128=peak=true',
      '-f',
      'null',
      '-',
    ]);
    const text = res.stderr.toString();
    const report = text.slice(text.lastIndexOf('Summary:'));
    const value = (label: string): number => Number(new RegExp(`${label}:\\s+(-?[\\d.]+)`).exec(report)?.[1]);
    console.log(
      `render loudness: I ${loudness.integratedLufs} LUFS (ffmpeg ${value('I')}), LRA ${loudness.lraLu} LU (ffmpeg ${value('LRA')}), true peak ${loudness.truePeakDbtp} dBTP (ffmpeg ${value('Peak')})`,
    );
    // ffmpeg prints one decimal; the AAC encoder moves the level a little and the peaks more.
    expect(Math.abs(loudness.integratedLufs! - value('I'))).toBeLessThanOrEqual(0.3);
    expect(Math.abs(loudness.truePeakDbtp! - value('Peak'))).toBeLessThanOrEqual(1);
  });

  test('the middle frame of every segment shows the marker of the camera its cut names', () => {
    const r = summary.result!;
    const markerOf = new Map(cameras().map((c) => [c.label, c.markerIndex]));
    const seen: string[] = [];
    for (const s of r.segments) {
      const mid = (s.outStartMs + s.outEndMs) / 2000;
      const { width, height, rgb } = decodeRgbFrame(file, mid, 320);
      const marker = readMarker(rgb, width, height, rp.truth.marker);
      expect(marker, `segment ${s.sourceId} at ${mid.toFixed(2)} s`).toBe(markerOf.get(s.sourceId));
      seen.push(s.sourceId);
    }
    expect(new Set(seen).size).toBe(3);
  });

  test('camera switches are frame-accurate: the last frame before and the first after each switch', () => {
    const r = summary.result!;
    const frameSec = 1 / r.fps;
    const markerOf = new Map(cameras().map((c) => [c.label, c.markerIndex]));
    const read = (sec: number) => {
      const { width, height, rgb } = decodeRgbFrame(file, sec, 320);
      return readMarker(rgb, width, height, rp.truth.marker);
    };
    for (let k = 1; k < r.segments.length; k++) {
      const prev = r.segments[k - 1]!;
      const next = r.segments[k]!;
      if (prev.sourceId === next.sourceId) continue;
      const at = next.outStartMs / 1000;
      expect(read(at - frameSec / 2), `last frame before ${at.toFixed(3)} s`).toBe(markerOf.get(prev.sourceId));
      expect(read(at + frameSec / 2), `first frame at ${at.toFixed(3)} s`).toBe(markerOf.get(next.sourceId));
    }
  });

  test('no click at the joins: the crossfaded output is smooth where the no-fade control clicks', async () => {
    const r = summary.result!;
    expect(r.joinsMs.length).toBe(2);
    expect(edit().removedRanges.length).toBe(2);
    const x = decodeAudio(file, 48_000);
    expect(Math.abs(x.length / 48 - r.keptMs)).toBeLessThan(1000 / r.fps);
    const control = await render({ output: { fadeMs: 0 } });
    expect(control.error).toBeUndefined();
    const cfile = join(OUT, 'tiny-nofade.mp4');
    writeFileSync(cfile, Buffer.from(control.fileBase64!, 'base64'));
    const y = decodeAudio(cfile, 48_000);
    // AAC's encoder delay is compensated in the file, so output time t is sample t·48 (± a few).
    const faded = r.joinsMs.map((j) => clickScore(x, 48_000, j));
    const hard = r.joinsMs.map((j) => clickScore(y, 48_000, j));
    console.log(
      `click score at joins: crossfaded ${faded.map((v) => v.toFixed(2)).join(', ')}; no fade ${hard.map((v) => v.toFixed(2)).join(', ')}`,
    );
    for (const f of faded) expect(f).toBeLessThan(1);
    // The detector does see a hard splice: every join of the no-fade control stands out.
    for (const h of hard) expect(h).toBeGreaterThan(1.2);
  });

  test('a render is cancelled by its AbortSignal and the sink is told', async () => {
    const s = await render({ abortAfterMs: 800, returnFile: false });
    expect(s.error).toMatchObject({ name: 'AbortError' });
    expect(s.sinkClosed).toBe(false);
    expect(s.sinkAborted).not.toBeNull();
  });
});

/** Native ffmpeg's `ebur128=peak=true` summary of a file: I (LUFS) and true peak (dBTP). */
function ebur128(path: string): { i: number; peak: number } {
  const res = spawnSync('ffmpeg', [
    '-nostats',
    '-hide_banner',
    '-i',
    path,
    '-af',
    'ebur128=peak=true',
    '-f',
    'null',
    '-',
  ]);
  const text = res.stderr.toString();
  const report = text.slice(text.lastIndexOf('Summary:'));
  const value = (label: string): number => Number(new RegExp(`${label}:\\s+(-?[\\d.]+)`).exec(report)?.[1]);
  return { i: value('I'), peak: value('Peak') };
}

describe('mastering: two close mics, one recorded 12 dB lower', () => {
  let micTruth: Truth;
  let micDir: string;
  let summary: PageRenderSummary;
  let file: string;
  /** The rendered stretch of the reference timeline. */
  let span: TimeRange;
  /** The render's request (the nudged render below asks the same, with a gain). */
  let request: PageRenderOptions;
  const TARGET = -16;

  /** Integrated loudness (our BS.1770 meter) of `x` (48 kHz mono) over one speaker's turns, `t0` ms being sample 0. */
  const speechLufs = (x: Float32Array, speaker: string, t0: number, within: TimeRange): number => {
    const meter = new LoudnessMeter(48_000, 1, { truePeak: false });
    for (const u of micTruth.turns) {
      const a = Math.max(u.startMs, within.startMs) + 100;
      const b = Math.min(u.endMs, within.endMs) - 100;
      if (u.speaker !== speaker || b - a < 500) continue;
      meter.push([x.subarray(Math.round(((a - t0) / 1000) * 48_000), Math.round(((b - t0) / 1000) * 48_000))]);
    }
    return meter.integratedLufs;
  };

  beforeAll(async () => {
    const fx = await ensureFixture('tiny', {
      seconds: 30,
      speakers: 2,
      cameras: 'closeup:1',
      width: 320,
      height: 180,
      mics: true,
      seed: '55',
    });
    micTruth = fx.truth;
    micDir = fx.dir;
    const mics = micTruth.sources.filter((s) => s.kind === 'audio');
    // Mic 2 recorded 12 dB lower: the same file through ffmpeg's volume filter.
    const wav = (path: string, gainDb: number): string => {
      const r = spawnSync(
        'ffmpeg',
        ['-v', 'error', '-i', path, '-af', `volume=${gainDb}dB`, '-c:a', 'pcm_s16le', '-f', 'wav', 'pipe:1'],
        {
          maxBuffer: 1 << 28,
        },
      );
      if (r.status !== 0) throw new Error(`ffmpeg volume: ${r.stderr.toString()}`);
      return `data:audio/wav;base64,${r.stdout.toString('base64')}`;
    };
    // 24 s of the conversation where both mics recorded; the tiny fixture's first camera gives the picture.
    const cam = cameras()[0]!;
    const start = Math.ceil(Math.max(cam.offsetMs, ...mics.map((m) => m.offsetMs)) / 100) * 100 + 500;
    const end = Math.min(start + 24_000, cam.endRefMs - 500, ...mics.map((m) => m.endRefMs - 500));
    span = { startMs: start, endMs: end };
    request = {
      cuts: [{ sourceId: cam.label, startMs: start, endMs: end }],
      removedRanges: [],
      sources: [
        sources()[0]!,
        ...mics.map((m, k) => ({
          id: m.label,
          kind: 'audio' as const,
          url: wav(join(fx.dir, m.file), k === 1 ? -12 : 0),
          offsetMs: m.offsetMs,
          driftPpm: m.driftPpm,
          durationMs: m.durationMs,
        })),
      ],
      audioSourceIds: mics.map((m) => m.label),
      output: { width: 320, height: 180 },
      audio: {
        loudnessLufs: TARGET,
        truePeakDbtp: -1,
        // As the pipeline passes them: every turn, the render finds whose mic is whose.
        turns: micTruth.turns,
      },
    };
    summary = await rp.page.evaluate((opts) => window.renderTest.render(opts), request);
    if (summary.error) throw new Error(`${summary.error.name}: ${summary.error.message}`);
    file = join(OUT, 'levelled.mp4');
    writeFileSync(file, Buffer.from(summary.fileBase64!, 'base64'));
  }, FIXTURE_TIMEOUT_MS);

  test("native ffmpeg's ebur128 reads the rendered file at −16 ± 1 LUFS and at most −1 dBTP", () => {
    const measured = ebur128(file);
    const levels = summary.result!.levels!;
    console.log(
      `mastered render: I ${measured.i} LUFS, true peak ${measured.peak} dBTP (ffmpeg); master gain ${levels.masterGainDb} dB, limiter ${levels.limiterMaxReductionDb} dB, ${summary.result!.elapsedMs.toFixed(0)} ms`,
    );
    expect(Math.abs(measured.i - TARGET)).toBeLessThanOrEqual(1);
    expect(measured.peak).toBeLessThanOrEqual(-1);
  });

  test("each speaker's speech in the render is within 2 LU of the other's (it is 12 LU apart on the mics)", () => {
    const mics = micTruth.sources.filter((s) => s.kind === 'audio');
    const [one, two] = mics.map((m) => m.micOf!);
    // On the mics as recorded (mic 2 12 dB down): each speaker on their own mic, 12 LU apart.
    const [rawA, rawB] = mics.map(
      (m, k) => speechLufs(decodeAudio(join(micDir, m.file), 48_000), m.micOf!, m.offsetMs, span) - (k === 1 ? 12 : 0),
    );
    expect(rawA! - rawB!).toBeGreaterThan(8);
    const out = decodeAudio(file, 48_000);
    const a = speechLufs(out, one!, span.startMs, span);
    const b = speechLufs(out, two!, span.startMs, span);
    const levels = summary.result!.levels!;
    console.log(
      `speech in the render: ${one} ${a.toFixed(2)} LUFS, ${two} ${b.toFixed(2)} LUFS; gains ${levels.sources.map((s) => s.speakers.map((k) => `${k.speaker} ${k.gainDb} dB (ride ${k.rideDb.join('‥')})`).join(', ')).join('; ')}`,
    );
    expect(Math.abs(a - b)).toBeLessThanOrEqual(2);
  });

  test("a person's gain: mic 2 nudged −6 dB puts its speaker about 6 dB under the other, at the target and under the ceiling", async () => {
    // At −23 LUFS: the fixture's voices peak about 23 dB over their loudness, so at −16 the limiter
    // takes 26 dB or more and flattens any difference between the voices (docs/render.md).
    const target = -23;
    const mics = micTruth.sources.filter((s) => s.kind === 'audio');
    const nudged = await rp.page.evaluate((opts) => window.renderTest.render(opts), {
      ...request,
      audio: { ...request.audio!, loudnessLufs: target },
      audioGains: { [mics[1]!.label]: -6 },
    });
    if (nudged.error) throw new Error(`${nudged.error.name}: ${nudged.error.message}`);
    const path = join(OUT, 'levelled-nudged.mp4');
    writeFileSync(path, Buffer.from(nudged.fileBase64!, 'base64'));
    const measured = ebur128(path);
    const out = decodeAudio(path, 48_000);
    const [one, two] = mics.map((m) => m.micOf!);
    const a = speechLufs(out, one!, span.startMs, span);
    const b = speechLufs(out, two!, span.startMs, span);
    const levels = nudged.result!.levels!;
    console.log(
      `nudged render (mic 2 −6 dB, ${target} LUFS): I ${measured.i} LUFS, true peak ${measured.peak} dBTP (ffmpeg); speech ${one} ${a.toFixed(2)}, ${two} ${b.toFixed(2)} LUFS (${(a - b).toFixed(2)} apart); master ${levels.masterGainDb} dB, limiter ${levels.limiterMaxReductionDb} dB`,
    );
    expect(levels.sources.map((s) => s.sourceGainDb)).toEqual([0, -6]);
    expect(Math.abs(measured.i - target)).toBeLessThanOrEqual(1);
    expect(measured.peak).toBeLessThanOrEqual(-1);
    expect(a - b).toBeGreaterThan(4.5);
    expect(a - b).toBeLessThan(7.5);
  });
});

describe('other outputs', () => {
  test('WebM: VP9 + Opus (WebCodecs), resized to 320×180, plays and lasts the kept timeline', async () => {
    const s = await render({ output: { container: 'webm', width: 320, height: 180 } });
    if (s.error) throw new Error(`${s.error.name}: ${s.error.message}`);
    const r = s.result!;
    expect(r).toMatchObject({
      container: 'webm',
      videoCodec: 'vp9',
      audioCodec: 'opus',
      audioEncoder: 'webcodecs',
      width: 320,
      height: 180,
    });
    expect(s.video).toMatchObject({ width: 320, height: 180 });
    const file = join(OUT, 'tiny.webm');
    writeFileSync(file, Buffer.from(s.fileBase64!, 'base64'));
    const info = ffprobe(file);
    expect(info.streams.map((x) => x.codec_name).sort()).toEqual(['opus', 'vp9']);
    expect(Math.abs(Number(info.format.duration) * 1000 - r.keptMs)).toBeLessThanOrEqual(1000 / r.fps);
    const v = info.streams.find((x) => x.codec_type === 'video')!;
    expect(Number(v.nb_read_frames)).toBe(r.frames);
    // The marker survives the downscale: read it from the middle of the second segment.
    const seg = r.segments[1]!;
    const { width, height, rgb } = decodeRgbFrame(file, (seg.outStartMs + seg.outEndMs) / 2000, 320);
    expect(readMarker(rgb, width, height, rp.truth.marker)).toBe(
      cameras().find((c) => c.label === seg.sourceId)!.markerIndex,
    );
  });

  test('an append-only sink gets a fragmented MP4 written strictly in order', async () => {
    const s = await render({ sequentialSink: true });
    if (s.error) throw new Error(`${s.error.name}: ${s.error.message}`);
    expect(s.outOfOrderWrites).toBe(0);
    const r = s.result!;
    const v = s.video as { duration: number };
    expect(Math.abs(v.duration * 1000 - r.keptMs)).toBeLessThanOrEqual(1000 / r.fps);
    const file = join(OUT, 'tiny-fragmented.mp4');
    writeFileSync(file, Buffer.from(s.fileBase64!, 'base64'));
    const info = ffprobe(file);
    expect(Number(info.streams.find((x) => x.codec_type === 'video')!.nb_read_frames)).toBe(r.frames);
  });

  test('without the optional ffmpeg core: H.264 + AAC-LC all the same, Opus only when asked, and the core is never fetched', async () => {
    const fetched: string[] = [];
    const onRequest = (r: { url(): string }) => void fetched.push(r.url());
    rp.page.context().on('request', onRequest);
    try {
      const s = await render({ noFfmpeg: true, output: { width: 320, height: 180 } });
      if (s.error) throw new Error(`${s.error.name}: ${s.error.message}`);
      const r = s.result!;
      expect(r).toMatchObject({ container: 'mp4', audioCodec: 'aac' });
      expect(['webcodecs', 'aac-wasm']).toContain(r.audioEncoder);
      const file = join(OUT, 'tiny-no-core.mp4');
      writeFileSync(file, Buffer.from(s.fileBase64!, 'base64'));
      const info = ffprobe(file);
      expect(info.streams.map((x) => x.codec_name).sort()).toEqual(['aac', 'h264']);
      expect(info.streams.find((x) => x.codec_type === 'audio')).toMatchObject({ profile: 'LC', sample_rate: '48000' });
      expect(s.video).toMatchObject({ width: 320, height: 180 });
      const opus = await render({ noFfmpeg: true, output: { width: 320, height: 180, audioCodec: 'opus' } });
      if (opus.error) throw new Error(`${opus.error.name}: ${opus.error.message}`);
      expect(opus.result).toMatchObject({ container: 'mp4', audioCodec: 'opus', audioEncoder: 'webcodecs' });
      const opusFile = join(OUT, 'tiny-opus.mp4');
      writeFileSync(opusFile, Buffer.from(opus.fileBase64!, 'base64'));
      expect(
        ffprobe(opusFile)
          .streams.map((x) => x.codec_name)
          .sort(),
      ).toEqual(['h264', 'opus']);
    } finally {
      rp.page.context().off('request', onRequest);
    }
    expect(fetched.filter((u) => u.includes('ffmpeg-core'))).toEqual([]);
  });

  test('errors name the field at fault', async () => {
    const bad = await render({ output: { container: 'webm', videoCodec: 'avc' } });
    expect(bad.error).toMatchObject({ name: 'RenderError' });
    expect(bad.error!.message).toContain('output.videoCodec');
    const unknown = await render({ cuts: [{ sourceId: 'nope', startMs: 6000, endMs: 8000 }], returnFile: false });
    expect(unknown.error!.message).toContain('cuts[0].sourceId');
    const mix = await render({ audioSourceIds: ['cam9'], returnFile: false });
    expect(mix.error).toMatchObject({ name: 'RenderError', message: 'audioSourceIds[0]: no source "cam9"' });
  });
});
