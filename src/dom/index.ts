/**
 * The page-side library: start the service worker and use the library API.
 *
 * @module
 */
export { startMulticam } from './start.ts';
export type { MulticamInstance, StartMulticamOptions } from './start.ts';
export { registerServiceWorker, serviceWorkerScriptUrl, normaliseBasePath } from './register.ts';
export type { RegistrationConfig } from './register.ts';
