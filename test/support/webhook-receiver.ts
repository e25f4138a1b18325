/**
 * A real webhook receiver for tests: a node:http server on 127.0.0.1 that records every
 * request (method, headers, raw body, arrival time) and answers as the test scripts it:
 * fail the first n attempts, hold the answer past the sender's time limit, or refuse CORS.
 *
 * @module
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { patient } from './patience.ts';

/** One request the receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
  /** performance.now() when the request arrived, ms. */
  receivedAt: number;
  /** Date.now() when the request arrived, ms since epoch. */
  receivedAtEpochMs: number;
}

/** How the receiver answers the n-th POST (1-based). */
export interface ScriptedAnswer {
  status: number;
  /** Hold the answer this long, ms (to exceed the sender's time limit). */
  delayMs?: number;
}

export interface WebhookReceiverOptions {
  /** The answer to POST number n (1-based); default 200 at once. */
  answer?: (n: number, request: ReceivedRequest) => ScriptedAnswer;
  /**
   * CORS consent: the origin to allow (`Access-Control-Allow-Origin`), or null to send no
   * CORS headers at all (a browser then blocks the cross-origin POST). Default null.
   */
  allowOrigin?: string | null;
  /**
   * Send `Cross-Origin-Resource-Policy: cross-origin` on every answer. A page with COEP
   * require-corp can then read no-cors answers of this host (the dispatcher's reachability
   * probe). Default false.
   */
  crossOriginResourcePolicy?: boolean;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The callback URL to give the sender. */
  url: string;
  /** Every request, in arrival order (OPTIONS preflights and HEAD probes included). */
  requests: ReceivedRequest[];
  /** Only the POSTs. */
  posts(): ReceivedRequest[];
  /** Resolves when `count` POSTs have arrived; rejects after `timeoutMs` (an idle machine's bound) times PATIENCE. */
  waitForPosts(count: number, timeoutMs: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Fails the first `failures` POSTs with `status`, then answers 200. */
export function failFirst(failures: number, status = 500): (n: number) => ScriptedAnswer {
  return (n) => ({ status: n <= failures ? status : 200 });
}

/** Starts a receiver on 127.0.0.1 (a free port). */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const answer = options.answer ?? ((): ScriptedAnswer => ({ status: 200 }));
  const allowOrigin = options.allowOrigin ?? null;
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  let postCount = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: performance.now(),
        receivedAtEpochMs: Date.now(),
      };
      requests.push(request);
      const cors: Record<string, string> =
        allowOrigin === null ? {} : { 'Access-Control-Allow-Origin': allowOrigin, Vary: 'Origin' };
      if (options.crossOriginResourcePolicy) cors['Cross-Origin-Resource-Policy'] = 'cross-origin';
      if (request.method === 'OPTIONS') {
        // Without consent: a plain 404 with no CORS headers, as a server that knows nothing of CORS answers.
        res.writeHead(allowOrigin === null ? 404 : 204, {
          ...cors,
          ...(allowOrigin === null
            ? {}
            : {
                'Access-Control-Allow-Methods': 'POST',
                'Access-Control-Allow-Headers': 'content-type, webhook-id, webhook-timestamp, webhook-signature',
                'Access-Control-Max-Age': '0',
              }),
        });
        res.end();
        for (const wake of waiters) wake();
        return;
      }
      if (request.method !== 'POST') {
        res.writeHead(405, cors).end();
        return;
      }
      postCount += 1;
      const { status, delayMs = 0 } = answer(postCount, request);
      const send = () => {
        if (!res.destroyed) res.writeHead(status, { ...cors, 'Content-Type': 'text/plain' }).end(String(status));
      };
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, delayMs);
        timers.add(timer);
      } else send();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const posts = () => requests.filter((r) => r.method === 'POST');

  return {
    origin,
    url: `${origin}/hooks/multicam`,
    requests,
    posts,
    waitForPosts(count, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (posts().length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(posts());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver got ${posts().length} POSTs, expected ${count} within ${patient(timeoutMs)} ms`));
        }, patient(timeoutMs));
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
