/**
 * Deep tier (not in CI; docs/testing.md#deep-tier): the render's forced ffmpeg.wasm libx264 video
 * fallback on the tiny fixture, moved out of the browser tier's render tests (38 s of its
 * 132 s). It is the path a browser without a WebCodecs H.264 encoder takes when the host opted in
 * to the ffmpeg core; Chromium, Firefox and Safari all encode H.264 with WebCodecs, so no browser
 * CI runs takes it. The output must play, have the right frame count and show the right camera
 * in every segment.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { decodeRgbFrame, readMarker } from '../support/audio-analysis.ts';
import { ffprobe, OUT, useTinyRenderPage } from '../support/render-page.ts';

const rp = useTinyRenderPage();
const { cameras, render } = rp;

describe('render fallbacks', () => {
  test('ffmpeg.wasm libx264 fallback (forced): plays, right frame count, right cameras', async () => {
    const s = await render({ output: { videoEncoder: 'ffmpeg.wasm', width: 320, height: 180 } });
    if (s.error) throw new Error(`${s.error.name}: ${s.error.message}`);
    const r = s.result!;
    expect(r).toMatchObject({
      videoEncoder: 'ffmpeg.wasm',
      videoCodec: 'avc',
      audioCodec: 'aac',
      width: 320,
      height: 180,
    });
    expect(r.videoCodecString).toMatch(/^avc1\.64/);
    expect(s.video).toMatchObject({ width: 320, height: 180 });
    const v = s.video as { duration: number };
    expect(Math.abs(v.duration * 1000 - r.keptMs)).toBeLessThanOrEqual(1000 / r.fps);
    const file = join(OUT, 'tiny-x264.mp4');
    writeFileSync(file, Buffer.from(s.fileBase64!, 'base64'));
    const info = ffprobe(file);
    const vs = info.streams.find((x) => x.codec_type === 'video')!;
    expect(vs).toMatchObject({ codec_name: 'h264', profile: 'High' });
    expect(Number(vs.nb_read_frames)).toBe(r.frames);
    const markerOf = new Map(cameras().map((c) => [c.label, c.markerIndex]));
    for (const seg of r.segments) {
      const { width, height, rgb } = decodeRgbFrame(file, (seg.outStartMs + seg.outEndMs) / 2000, 320);
      expect(readMarker(rgb, width, height, rp.truth.marker), seg.sourceId).toBe(markerOf.get(seg.sourceId));
    }
  });
});
