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
export {
  BrowserSupportError,
  evaluateCapabilities,
  probeBrowserCapabilities,
  SUPPORTED_BROWSERS,
} from './capabilities.ts';
export type { BrowserCapabilities, CapabilityNeeds, CapabilityReport } from './capabilities.ts';
