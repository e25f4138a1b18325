/**
 * The model slot for a person or face detector (onnxruntime-web), supplied by the host app.
 *
 * The camera map stands on motion alone; a detector, when the host provides one, can tell
 * how many people a camera shows and where, which motion cannot while someone stays silent
 * (a two-shot whose second person has not spoken looks like an off-centre close-up).
 * No detector model ships with multicam, and none is faked: without a slot the motion
 * method decides alone.
 *
 * @module
 */

/** One detection in a frame, normalised to the frame (0..1). */
export interface PersonBox {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
}

/**
 * What the host app plugs in. `detect` receives a small RGBA frame (as the vision worker
 * samples it) and returns people or faces found. Implementations usually wrap an
 * onnxruntime-web `InferenceSession` created from the app's own `models/` (never a CDN).
 */
export interface PersonDetectorSlot {
  /** Model name and version, recorded with the camera map's diagnostics. */
  readonly id: string;
  /** Input size the model wants; the sampler scales frames to it. */
  readonly inputWidth: number;
  readonly inputHeight: number;
  detect(rgba: Uint8ClampedArray, width: number, height: number, signal?: AbortSignal): Promise<PersonBox[]>;
  /** Releases the session (GPU/wasm memory). */
  dispose(): Promise<void>;
}

/**
 * How many people a camera shows, from detections on a few frames: the median count, and
 * their horizontal centres left to right (averaged over frames with that count).
 */
export function summarisePeople(
  perFrame: ReadonlyArray<readonly PersonBox[]>,
  minScore = 0.5,
): { count: number; centresX: number[] } {
  const kept = perFrame.map((boxes) =>
    boxes
      .filter((b) => b.score >= minScore)
      .map((b) => b.x + b.w / 2)
      .sort((a, b) => a - b),
  );
  if (kept.length === 0) return { count: 0, centresX: [] };
  const counts = kept.map((k) => k.length).sort((a, b) => a - b);
  const count = counts[counts.length >> 1]!;
  const same = kept.filter((k) => k.length === count);
  const centresX = Array.from({ length: count }, (_, i) => same.reduce((s, k) => s + k[i]!, 0) / same.length);
  return { count, centresX };
}
