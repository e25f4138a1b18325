/**
 * The review editor page (served at `/review/`, the path of every `reviewUrl`). It connects
 * to the service worker that already controls this origin, keeping its base path and
 * database, or registers the default one, then mounts the editor for the link's token.
 *
 * `?engine=off` leaves processing (the render) to another page; tests use it with their test
 * engine. Otherwise this page runs the engine, as the demo page does, so a render started
 * here progresses even when no other tab is open.
 *
 * @module
 */
import { startMulticam } from '../src/dom/start.ts';
import { mountReviewEditor } from '../src/dom/editor/editor.ts';

const root = document.getElementById('editor');
if (!root) throw new Error('review/index.html has no #editor element');
const params = new URLSearchParams(location.search);

async function main(editor: HTMLElement): Promise<void> {
  // Keep the configuration of the worker that controls the page (a different base path or
  // database would re-register it and point the page at other data).
  const controller = navigator.serviceWorker?.controller;
  const script = controller ? new URL(controller.scriptURL) : null;
  const basePath = script?.searchParams.get('base') ?? '/api';
  const dbName = script?.searchParams.get('db') ?? undefined;
  const multicam = await startMulticam({
    basePath,
    ...(dbName === undefined ? {} : { dbName }),
    engine: params.get('engine') !== 'off',
    assets: { ffmpegWasmBase: '/wasm/' },
  });
  const mounted = mountReviewEditor(editor, { baseUrl: multicam.baseUrl, token: params.get('token') });
  addEventListener('pagehide', () => {
    mounted.dispose();
    multicam.close();
  });
}

main(root).catch((error: unknown) => {
  const message = document.createElement('p');
  message.className = 'error';
  message.setAttribute('role', 'alert');
  message.textContent = `The editor could not start: ${error instanceof Error ? error.message : String(error)}`;
  root.replaceChildren(message);
});
