/**
 * BlazeFace's raw output to face detections, and the square tiles a frame is cut into for it.
 *
 * The front model (MediaPipe `face_detection_front`, 128×128 NHWC input in −1..1) scores 896
 * anchors on two grids: 16×16 cells of 8 pixels with 2 anchors each (512), then 8×8 cells of
 * 16 pixels with 6 anchors each (384). Per anchor it gives a logit and 16 numbers in input
 * pixels relative to the anchor's cell centre: the box centre offset, its width and height, and
 * six keypoints (right eye, left eye, nose tip, mouth centre, right ear, left ear). Anchors
 * above the threshold are merged by weighted non-maximum suppression (overlapping boxes
 * averaged, weighted by score), as MediaPipe and keijiro's BlazeFaceBarracuda do.
 *
 * @module
 */

/** The front model's input side (pixels). */
export const BLAZEFACE_SIZE = 128;

/** Index of the mouth centre among the six keypoints. */
export const MOUTH_KEYPOINT = 3;

/** One face: box centre and size, keypoints, all as fractions of the picture it was found in. */
export interface FaceDetection {
  score: number;
  cx: number;
  cy: number;
  w: number;
  h: number;
  /** Six [x, y] pairs: right eye, left eye, nose, mouth, right ear, left ear. */
  keypoints: Array<[number, number]>;
}

/** The model's four outputs: scores and boxes of the 16×16 grid (512 anchors), then of the 8×8 grid (384). */
export interface BlazeFaceOutputs {
  scores16: Float32Array;
  boxes16: Float32Array;
  scores8: Float32Array;
  boxes8: Float32Array;
}

/** Options of {@link decodeBlazeFace}. */
export interface DecodeOptions {
  /** Minimum score (after the sigmoid). Default 0.6. */
  threshold?: number;
  /** Boxes overlapping by at least this IoU are one face. Default 0.3. */
  iou?: number;
}

/**
 * Face detections from the model's raw outputs, strongest first.
 *
 * @throws Error when an output's length does not match its grid.
 * @example
 * const faces = decodeBlazeFace(outputs, { threshold: 0.6 });
 * faces[0]?.keypoints[MOUTH_KEYPOINT]; // [x, y] of the mouth in the input square
 */
export function decodeBlazeFace(out: BlazeFaceOutputs, options: DecodeOptions = {}): FaceDetection[] {
  const threshold = options.threshold ?? 0.6;
  const logit = Math.log(threshold / (1 - threshold));
  const found: FaceDetection[] = [];
  const grids = [
    { scores: out.scores16, boxes: out.boxes16, cells: 16, perCell: 2, name: '16×16' },
    { scores: out.scores8, boxes: out.boxes8, cells: 8, perCell: 6, name: '8×8' },
  ];
  for (const g of grids) {
    const anchors = g.cells * g.cells * g.perCell;
    if (g.scores.length !== anchors || g.boxes.length !== anchors * 16) {
      throw new Error(
        `BlazeFace ${g.name} grid: ${g.scores.length} scores and ${g.boxes.length} box values, expected ${anchors} and ${anchors * 16}`,
      );
    }
    for (let i = 0; i < anchors; i++) {
      if (g.scores[i]! < logit) continue;
      const cell = Math.floor(i / g.perCell);
      const ax = ((cell % g.cells) + 0.5) / g.cells;
      const ay = (Math.floor(cell / g.cells) + 0.5) / g.cells;
      const b = g.boxes.subarray(i * 16, i * 16 + 16);
      const keypoints: Array<[number, number]> = [];
      for (let k = 0; k < 6; k++)
        keypoints.push([ax + b[4 + 2 * k]! / BLAZEFACE_SIZE, ay + b[5 + 2 * k]! / BLAZEFACE_SIZE]);
      found.push({
        score: 1 / (1 + Math.exp(-g.scores[i]!)),
        cx: ax + b[0]! / BLAZEFACE_SIZE,
        cy: ay + b[1]! / BLAZEFACE_SIZE,
        w: b[2]! / BLAZEFACE_SIZE,
        h: b[3]! / BLAZEFACE_SIZE,
        keypoints,
      });
    }
  }
  return weightedNms(found, options.iou ?? 0.3);
}

/**
 * Overlapping detections merged: each group (IoU ≥ `iou` with its strongest member) becomes
 * the score-weighted mean of its boxes and keypoints, with the group's best score.
 */
export function weightedNms(detections: readonly FaceDetection[], iou: number): FaceDetection[] {
  const rest = [...detections].sort((a, b) => b.score - a.score);
  const out: FaceDetection[] = [];
  while (rest.length > 0) {
    const top = rest[0]!;
    const group = rest.filter((d) => overlap(top, d) >= iou);
    const keep = rest.filter((d) => overlap(top, d) < iou);
    rest.length = 0;
    rest.push(...keep);
    const total = group.reduce((s, d) => s + d.score, 0);
    const mean = (pick: (d: FaceDetection) => number): number =>
      group.reduce((s, d) => s + pick(d) * d.score, 0) / total;
    out.push({
      score: top.score,
      cx: mean((d) => d.cx),
      cy: mean((d) => d.cy),
      w: mean((d) => d.w),
      h: mean((d) => d.h),
      keypoints: top.keypoints.map((_, k) => [mean((d) => d.keypoints[k]![0]), mean((d) => d.keypoints[k]![1])]),
    });
  }
  return out;
}

/** Intersection over union of two boxes. */
export function overlap(
  a: Pick<FaceDetection, 'cx' | 'cy' | 'w' | 'h'>,
  b: Pick<FaceDetection, 'cx' | 'cy' | 'w' | 'h'>,
): number {
  const x0 = Math.max(a.cx - a.w / 2, b.cx - b.w / 2);
  const x1 = Math.min(a.cx + a.w / 2, b.cx + b.w / 2);
  const y0 = Math.max(a.cy - a.h / 2, b.cy - b.h / 2);
  const y1 = Math.min(a.cy + a.h / 2, b.cy + b.h / 2);
  const inner = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  const union = a.w * a.h + b.w * b.h - inner;
  return union > 0 ? inner / union : 0;
}

/** A square crop of a frame (pixels of the frame). */
export interface FrameTile {
  x: number;
  y: number;
  side: number;
}

/**
 * Square tiles covering a frame, each as tall (or wide) as the frame's short side: one for a
 * square frame, three overlapping ones for 16:9 (left, centre, right). Faces in a wide shot
 * are a fifth of the frame's height, which the front model sees; a whole 16:9 frame squeezed
 * into 128 pixels would make them too small.
 */
export function frameTiles(width: number, height: number): FrameTile[] {
  const side = Math.min(width, height);
  const long = Math.max(width, height);
  const count = long <= side * 1.05 ? 1 : Math.max(2, Math.ceil(((long - side) / side) * 2) + 1);
  const tiles: FrameTile[] = [];
  for (let i = 0; i < count; i++) {
    const at = count === 1 ? 0 : Math.round(((long - side) * i) / (count - 1));
    tiles.push(width >= height ? { x: at, y: 0, side } : { x: 0, y: at, side });
  }
  return tiles;
}

/**
 * Detections of every tile in frame fractions, one per face: a face cut by a tile's inner edge
 * is left to the tile that holds it whole, and the rest merged by {@link weightedNms}.
 */
export function mergeTileDetections(
  perTile: ReadonlyArray<{ tile: FrameTile; faces: readonly FaceDetection[] }>,
  width: number,
  height: number,
  iou = 0.3,
): FaceDetection[] {
  const all: FaceDetection[] = [];
  for (const { tile, faces } of perTile) {
    const edge = 0.02;
    const innerLeft = tile.x > 0;
    const innerRight = tile.x + tile.side < width;
    const innerTop = tile.y > 0;
    const innerBottom = tile.y + tile.side < height;
    for (const f of faces) {
      const cut =
        (innerLeft && f.cx - f.w / 2 < edge) ||
        (innerRight && f.cx + f.w / 2 > 1 - edge) ||
        (innerTop && f.cy - f.h / 2 < edge) ||
        (innerBottom && f.cy + f.h / 2 > 1 - edge);
      if (cut) continue;
      const fx = (x: number): number => (tile.x + x * tile.side) / width;
      const fy = (y: number): number => (tile.y + y * tile.side) / height;
      all.push({
        score: f.score,
        cx: fx(f.cx),
        cy: fy(f.cy),
        w: (f.w * tile.side) / width,
        h: (f.h * tile.side) / height,
        keypoints: f.keypoints.map(([x, y]) => [fx(x), fy(y)]),
      });
    }
  }
  return weightedNms(all, iou);
}
