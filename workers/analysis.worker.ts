/**
 * The engine's analysis worker: exposes the speaker-detection service
 * (src/speakers/service.ts), {@link AnalysisWorkerApi} of src/speakers/protocol.ts, with
 * comlink. The engine runner (src/pipeline/runner.ts) starts it for the syncing stage's
 * alignment and the diarizing stage's speaker detection; the service starts its VAD lanes
 * (workers/vad-lane.worker.ts) itself.
 *
 * @module
 */
import { expose } from 'comlink';
import type { AnalysisWorkerApi } from '../src/speakers/protocol.ts';
import { createSpeakerService } from '../src/speakers/service.ts';

const api: AnalysisWorkerApi = createSpeakerService();

expose(api);
