const sw = self as unknown as ServiceWorkerGlobalScope;
sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));
export {};
