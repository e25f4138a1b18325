/**
 * The page-side library: start the service worker and use the library API.
 *
 * @module
 */
export { startMulticam } from './start.ts';
export type { MulticamInstance, StartMulticamOptions } from './start.ts';
export { registerServiceWorker, serviceWorkerScriptUrl } from './register.ts';
export { normaliseBasePath } from '../contract/base-path.ts';
export type { RegistrationConfig } from './register.ts';
