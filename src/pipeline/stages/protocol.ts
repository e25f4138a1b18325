/**
 * The analysis worker's protocol, as the engine's stages import it. It is defined in
 * src/media/analysis-protocol.ts, where the workers import it from without importing the
 * engine (the fence in scripts/check-layers.mjs).
 *
 * @module
 */
export * from '../../media/analysis-protocol.ts';
