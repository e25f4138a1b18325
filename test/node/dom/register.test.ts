/**
 * Waiting for the service worker to take control (src/dom/register.ts) when the registration
 * stalls as it did on a loaded CI machine: the page's `navigator.serviceWorker` is a TEST DOUBLE
 * (`FakeContainer`) whose registration can be told to activate without claiming the page, or to
 * lose its new worker to another page's registration. Fake timers stand in for the seconds.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { CLAIM_MESSAGE, registerServiceWorker, serviceWorkerScriptUrl } from '../../../src/dom/register.ts';

/** Test double of a ServiceWorker: its URL, state and the messages posted to it. */
class FakeWorker {
  readonly posted: unknown[] = [];
  constructor(
    readonly scriptURL: string,
    public state: ServiceWorkerState = 'activated',
    private readonly onMessage: (data: unknown) => void = () => undefined,
  ) {}
  postMessage(data: unknown): void {
    this.posted.push(data);
    this.onMessage(data);
  }
}

/** Test double of a ServiceWorkerContainer with one registration at scope `/`. */
class FakeContainer extends EventTarget {
  controller: FakeWorker | null = null;
  readonly registration = {
    installing: null as FakeWorker | null,
    waiting: null as FakeWorker | null,
    active: null as FakeWorker | null,
  };
  registerCalls = 0;
  /** What a `register` call does once it resolves. */
  behaviour: 'claims' | 'activates without claiming' | 'replaced by another page' = 'claims';

  register(url: string): Promise<typeof this.registration> {
    this.registerCalls++;
    const behaviour = this.registerCalls === 1 ? this.behaviour : 'claims';
    queueMicrotask(() => {
      if (behaviour === 'replaced by another page') {
        this.registration.active = new FakeWorker('http://127.0.0.1/sw.js?base=%2Fapi&db=other');
        return;
      }
      const worker = new FakeWorker(url, 'activated', (data) => {
        if (data === CLAIM_MESSAGE) this.take(worker);
      });
      this.registration.active = worker;
      if (behaviour === 'claims') this.take(worker);
    });
    return Promise.resolve(this.registration);
  }

  take(worker: FakeWorker): void {
    this.controller = worker;
    this.dispatchEvent(new Event('controllerchange'));
  }
}

let container: FakeContainer;
const config = { basePath: '/api', dbName: 'db-1' };

beforeEach(() => {
  vi.useFakeTimers();
  container = new FakeContainer();
  vi.stubGlobal('location', new URL('http://127.0.0.1/demo/'));
  vi.stubGlobal('navigator', { serviceWorker: container });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('registerServiceWorker', () => {
  test('resolves when the new worker claims the page', async () => {
    await expect(registerServiceWorker(config)).resolves.toBe(container.registration);
    expect(container.controller?.scriptURL).toBe(serviceWorkerScriptUrl(config));
    expect(container.registerCalls).toBe(1);
  });

  test('a worker active but not controlling the page is asked to claim it again after 10 s', async () => {
    container.behaviour = 'activates without claiming';
    const done = registerServiceWorker(config);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(container.controller).toBeNull();
    expect(container.registration.active?.posted).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(done).resolves.toBe(container.registration);
    expect(container.registration.active?.posted).toEqual([CLAIM_MESSAGE]);
    expect(container.registerCalls).toBe(1);
  });

  test("a registration another page's configuration replaced is registered again, once", async () => {
    container.behaviour = 'replaced by another page';
    const done = registerServiceWorker(config);
    await vi.advanceTimersByTimeAsync(11_000);
    await expect(done).resolves.toBe(container.registration);
    expect(container.registerCalls).toBe(2);
    expect(container.controller?.scriptURL).toBe(serviceWorkerScriptUrl(config));
  });

  test('a worker that never takes control times out, naming what the registration holds', async () => {
    container.behaviour = 'activates without claiming';
    const worker = () => container.registration.active!;
    const done = registerServiceWorker({ ...config, timeoutMs: 30_000 });
    const failed = expect(done).rejects.toThrow(
      /did not take control within 30000 ms \(installing none, waiting none, active \?base=%2Fapi&db=db-1 activated; controller none\)/,
    );
    await vi.advanceTimersByTimeAsync(1);
    // The claim is asked for once, and this worker ignores it.
    worker().postMessage = (data: unknown) => void worker().posted.push(data);
    await vi.advanceTimersByTimeAsync(31_000);
    await failed;
    expect(worker().posted).toEqual([CLAIM_MESSAGE]);
  });
});
