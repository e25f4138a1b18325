/**
 * Faces of a camera file in Node, the way the vision worker finds them: Debian's ffmpeg decodes
 * runs of consecutive frames to YUV 4:2:0 at full resolution (`-ss` before `-i`: from the
 * keyframe before, as the browser's GOP-aligned runs), the Y plane goes through the engine's
 * `FaceProbe` with BlazeFace on onnxruntime-web (wasm), and `trackFaces` groups the faces.
 */
import { spawn } from 'node:child_process';
import { trackFaces, type CameraFaces, type FaceRun } from '../../../src/analysis/faces/face-tracks.ts';
import { FaceProbe, type FaceDetector } from '../../../src/vision/face-probe.ts';

export interface FfmpegFaceOptions {
  width: number;
  height: number;
  fps: number;
  /** Run starts in seconds (file time). */
  runStartsS: number[];
  framesPerRun?: number;
}

/** Faces and mouth motion of one camera (times in the file's own ms), and what detection cost. */
export async function ffmpegCameraFaces(
  file: string,
  detector: FaceDetector,
  o: FfmpegFaceOptions,
): Promise<{ faces: CameraFaces; runs: FaceRun[]; detections: number; detectMs: number; frames: number }> {
  const perRun = o.framesPerRun ?? 15;
  const probe = new FaceProbe(detector);
  const ySize = o.width * o.height;
  const frameSize = ySize * 1.5;
  let frames = 0;
  for (const start of o.runStartsS) {
    const bytes = await run('ffmpeg', [
      '-v',
      'error',
      '-threads',
      '1',
      '-ss',
      start.toFixed(3),
      '-i',
      file,
      '-frames:v',
      String(perRun),
      '-f',
      'rawvideo',
      '-pix_fmt',
      'yuv420p',
      '-',
    ]);
    for (let i = 0; (i + 1) * frameSize <= bytes.length; i++) {
      const plane = { data: bytes, offset: i * frameSize, stride: o.width, width: o.width, height: o.height };
      await probe.frame(plane, Math.round((start + i / o.fps) * 1000), i === 0);
      frames++;
    }
  }
  return {
    faces: trackFaces(probe.runs),
    runs: probe.runs,
    detections: probe.detections,
    detectMs: probe.detectMs,
    frames,
  };
}

function run(cmd: string, args: string[]): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(new Uint8Array(Buffer.concat(chunks)))
        : reject(new Error(`${cmd} failed (${code}): ${err.trim()}`)),
    );
  });
}
