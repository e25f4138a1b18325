/**
 * What both demo pages share: start multicam (service worker + library API), make sure a
 * demo account exists, and expose the running instance as `window.multicam`.
 *
 * The demo account id and its first API key live in localStorage: this is a local demo
 * where the browser is both the client and the service.
 *
 * @module
 */
import { startMulticam, type MulticamInstance } from '../src/dom/start.ts';

const ACCOUNT_KEY = 'multicam-demo-account';
const API_KEY = 'multicam-demo-api-key';

/** The demo session: `window.multicam` in both pages. */
export interface DemoSession {
  readonly instance: MulticamInstance;
  readonly accountId: string;
  /** The API key the demo page uses for its own requests. */
  readonly apiKey: string;
  /** A new API key for the demo account; the plaintext is shown once. */
  createApiKey(): Promise<{ apiKey: string; keyId: string }>;
  /** GET {base}/jobs with the demo key, through the service worker. */
  listJobs(): Promise<Response>;
}

/** Starts the demo and publishes it as `window.multicam`. */
export async function openDemoSession(): Promise<DemoSession> {
  // The demo runs the pipeline in this page (engine runner + webhook delivery).
  // The demo opts in to the optional ffmpeg core (GPL), which scripts/copy-assets.mjs pins in
  // wasm/, for files the browser cannot read (and H.264 where it has no encoder). A render's AAC
  // never needs it: the render worker brings its own AAC encoder (@mediabunny/aac-encoder, MPL-2.0).
  // `?activeSpeakerModel=/path.onnx` (this origin only; `multicam edit --active-speaker-model`
  // serves the file and opens the page so): the camera map's optional active-speaker model.
  const activeSpeakerModelUrl = new URLSearchParams(location.search).get('activeSpeakerModel');
  const instance = await startMulticam({
    basePath: '/api',
    engine: true,
    assets: {
      ffmpegWasmBase: '/wasm/',
      ...(activeSpeakerModelUrl?.startsWith('/') && !activeSpeakerModelUrl.startsWith('//')
        ? { activeSpeakerModelUrl }
        : {}),
    },
  });
  let accountId = localStorage.getItem(ACCOUNT_KEY);
  let apiKey = localStorage.getItem(API_KEY);
  if (accountId === null || apiKey === null) {
    const created = await instance.accounts.create({ name: 'Demo account' });
    accountId = created.accountId;
    apiKey = created.apiKey;
    localStorage.setItem(ACCOUNT_KEY, accountId);
    localStorage.setItem(API_KEY, apiKey);
  }
  const id = accountId;
  const key = apiKey;
  const session: DemoSession = {
    instance,
    accountId: id,
    apiKey: key,
    createApiKey: () => instance.accounts.createApiKey(id),
    listJobs: () => fetch(`${instance.basePath}/jobs`, { headers: { authorization: `Bearer ${key}` } }),
  };
  (window as unknown as { multicam: DemoSession }).multicam = session;
  return session;
}

/** Shows an error on the page (as text, never as markup). */
export function showError(target: HTMLElement, error: unknown): void {
  target.textContent = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Creates an element with text content; the only way the demo puts data on screen. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}
