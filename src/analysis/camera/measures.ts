/**
 * What the vision worker measures of each camera for the camera map, as one record: the vision
 * protocol's `CameraMotion` carries it (in the camera's own time), {@link measuresToReference}
 * puts it on the reference timeline, and the mapping stage hands it to `computeCameraMap` as it
 * is. A new measurement is a field here (and its conversion below): the carriers between the
 * worker and the scoring are not opened (docs/architecture.md, "What a newcomer touches").
 *
 * Its own module because the faces' conversion (`facesToReference`) uses features.ts's
 * `cameraToReferenceMs`: held in features.ts, the two would import each other.
 *
 * @module
 */
import { facesToReference, type CameraFaces } from '../faces/face-tracks.ts';
import { samplesToReference, type MotionSamples } from './features.ts';

/** One camera's measurements: its motion, and when faces were looked for, its faces. */
export interface CameraMeasures {
  /** Motion series; null when the camera could not be sampled. */
  samples: MotionSamples | null;
  /** Face tracks; null (or absent) when faces were not looked for or could not be. */
  faces?: CameraFaces | null;
}

/**
 * A camera's measurements moved from its own time to the reference timeline (a copy; the input
 * is untouched), with the sync convention of `cameraToReferenceMs`. Only the measurements are
 * kept: a `CameraMotion` given here loses its decode figures.
 *
 * @example
 * const measures = measuresToReference(motion, source.offsetMs ?? 0, source.driftPpm ?? 0);
 * computeCameraMap({ cameras: [{ sourceId: source.id, ...measures }], turns });
 */
export function measuresToReference(measures: CameraMeasures, offsetMs = 0, driftPpm = 0): CameraMeasures {
  const { samples, faces } = measures;
  return {
    samples: samples && samplesToReference(samples, offsetMs, driftPpm),
    ...(faces !== undefined ? { faces: faces && facesToReference(faces, offsetMs, driftPpm) } : {}),
  };
}
