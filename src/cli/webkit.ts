/**
 * The one place that launches WebKit: Debian's WebKitGTK MiniBrowser in automation mode under
 * `WebKitWebDriver` (package `webkit2gtk-driver`), on a virtual X display (`xvfb-run`), driven
 * over classic WebDriver with plain `fetch` (no client library). Like src/cli/chromium.ts and
 * src/cli/firefox.ts, it owns the settings that keep the browser off the network, so no test or
 * tool forgets them: every request but loopback goes to a dead proxy (the WebDriver `proxy`
 * capability), and the browser's data and cache directories are a fresh temporary folder.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Debian's WebKitGTK MiniBrowser; override with MULTICAM_WEBKIT. */
export const WEBKIT_PATH = process.env['MULTICAM_WEBKIT'] ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** The WebDriver server of `webkit2gtk-driver`, found on PATH. */
export const WEBKIT_DRIVER = 'WebKitWebDriver';

/** Runs the driver (and the browser it starts) on a virtual X display; package `xvfb`. */
export const XVFB_RUN = 'xvfb-run';

/**
 * A proxy address where nothing listens: every request that is not to loopback goes there and
 * fails (the counterpart of Chromium's `--host-resolver-rules=MAP * ~NOTFOUND` and Firefox's
 * dead proxy in src/cli/firefox.ts).
 */
const DEAD_PROXY = '127.0.0.1:9';

/** The WebDriver `proxy` capability: all but loopback to {@link DEAD_PROXY}. */
export const WEBKIT_PROXY = {
  proxyType: 'manual',
  httpProxy: DEAD_PROXY,
  sslProxy: DEAD_PROXY,
  noProxy: ['127.0.0.1', 'localhost'],
} as const;

/** Finds `name` on PATH (an executable file), or null. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * What a WebKit run needs and this machine lacks, each with the Debian package that brings it:
 * empty when {@link launchWebKit} can start.
 */
export function missingWebKitParts(env: NodeJS.ProcessEnv = process.env): string[] {
  const missing: string[] = [];
  const binary = env['MULTICAM_WEBKIT'] ?? WEBKIT_PATH;
  if (!existsSync(binary))
    missing.push(`MiniBrowser at ${binary} (apt-get install webkit2gtk-driver, or set MULTICAM_WEBKIT)`);
  if (onPath(WEBKIT_DRIVER, env) === null) missing.push(`${WEBKIT_DRIVER} on PATH (apt-get install webkit2gtk-driver)`);
  if (onPath(XVFB_RUN, env) === null) missing.push(`${XVFB_RUN} on PATH (apt-get install xvfb)`);
  return missing;
}

/** A WebDriver error answer, its `error` code and message. */
export class WebDriverError extends Error {
  override name = 'WebDriverError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export interface WebKitLaunchOptions {
  /**
   * How long a script run by {@link WebKitSession.executeAsync} may take, in ms (the WebDriver
   * `script` timeout; WebDriver's default is 30 000).
   */
  scriptTimeout?: number;
  /** How long a navigation may take, in ms (WebDriver's `pageLoad` timeout; default 300 000). */
  pageLoadTimeout?: number;
}

/** One classic WebDriver session in MiniBrowser: the calls the tests need. */
export interface WebKitSession {
  /** Loads `url` in the session's window and waits for the load. */
  navigate(url: string): Promise<void>;
  /** The current URL. */
  url(): Promise<string>;
  /** Runs `script` as a function body with `args`; its return value, as JSON. */
  execute(script: string, args?: readonly unknown[]): Promise<unknown>;
  /** Runs `script` with `args` and a callback as its last argument; the value passed to the callback. */
  executeAsync(script: string, args?: readonly unknown[]): Promise<unknown>;
  /** A PNG screenshot of the window. */
  screenshot(): Promise<Buffer>;
}

export interface LaunchedWebKit {
  readonly session: WebKitSession;
  /** The driver's base URL (`http://127.0.0.1:{port}`). */
  readonly driverUrl: string;
  /** The browser's data, cache and config folders: a fresh directory that is removed on close. */
  readonly userDataDir: string;
  /** What the driver (and the browser under it) wrote on stderr, for a failure's report. */
  driverLog(): string;
  close(): Promise<void>;
}

/** A free loopback port for the driver. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One WebDriver command: its `value`, or a {@link WebDriverError}. */
async function command(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await res.json()) as { value?: unknown };
  const value = answer.value;
  if (!res.ok) {
    const error = (value ?? {}) as { error?: string; message?: string };
    throw new WebDriverError(error.error ?? String(res.status), error.message ?? '');
  }
  return value ?? null;
}

/** Waits until the driver answers `/status` ready, or gives up after `ms`. */
async function waitForDriver(base: string, driver: ChildProcess, ms: number, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (driver.exitCode !== null)
      throw new Error(`${WEBKIT_DRIVER} ended (exit ${driver.exitCode}) before it was ready: ${log()}`);
    try {
      const status = (await command(base, 'GET', '/status')) as { ready?: boolean } | null;
      if (status?.ready !== false) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${WEBKIT_DRIVER} did not answer on ${base} in ${ms} ms: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts `xvfb-run -a WebKitWebDriver --port=N` and one session in MiniBrowser (`--automation`)
 * with a fresh data folder and no network beyond loopback.
 *
 * @example
 * ```ts
 * const webkit = await launchWebKit();
 * await webkit.session.navigate('http://127.0.0.1:5173/');
 * console.log(await webkit.session.execute('return document.title'));
 * await webkit.close();
 * ```
 */
export async function launchWebKit(options: WebKitLaunchOptions = {}): Promise<LaunchedWebKit> {
  const missing = missingWebKitParts();
  if (missing.length > 0) throw new Error(`WebKit cannot start; missing: ${missing.join('; ')}`);
  const userDataDir = mkdtempSync(join(tmpdir(), 'multicam-webkit-'));
  const xdg = (name: string): string => {
    const dir = join(userDataDir, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Its own process group, so close() ends xvfb-run, Xvfb, the driver and the browser together;
  // the X authority file lives in the temporary folder (without `-f`, xvfb-run makes a folder of
  // its own in /tmp that a signal leaves behind).
  const authFile = join(userDataDir, 'Xauthority');
  const driver = spawn(XVFB_RUN, ['-a', '-f', authFile, WEBKIT_DRIVER, `--port=${port}`], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      // Nothing of the user's: the browser's data, cache and config live in the temporary folder.
      HOME: userDataDir,
      XDG_DATA_HOME: xdg('data'),
      XDG_CACHE_HOME: xdg('cache'),
      XDG_CONFIG_HOME: xdg('config'),
      // No accessibility bus to look for on the virtual display.
      NO_AT_BRIDGE: '1',
    },
  });
  let log = '';
  driver.stderr?.on('data', (chunk: Buffer) => {
    log = (log + String(chunk)).slice(-20_000);
  });
  const stop = (): void => {
    if (driver.pid !== undefined && driver.exitCode === null) {
      try {
        process.kill(-driver.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  let sessionId: string;
  try {
    await waitForDriver(base, driver, 30_000, () => log);
    const created = (await command(base, 'POST', '/session', {
      capabilities: {
        alwaysMatch: {
          proxy: WEBKIT_PROXY,
          timeouts: {
            script: options.scriptTimeout ?? 30_000,
            pageLoad: options.pageLoadTimeout ?? 300_000,
          },
          'webkitgtk:browserOptions': { binary: WEBKIT_PATH, args: ['--automation'] },
        },
      },
    })) as { sessionId: string };
    sessionId = created.sessionId;
  } catch (error) {
    stop();
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const at = `/session/${sessionId}`;
  const session: WebKitSession = {
    async navigate(url) {
      await command(base, 'POST', `${at}/url`, { url });
    },
    async url() {
      return String(await command(base, 'GET', `${at}/url`));
    },
    execute: (script, args = []) => command(base, 'POST', `${at}/execute/sync`, { script, args }),
    executeAsync: (script, args = []) => command(base, 'POST', `${at}/execute/async`, { script, args }),
    async screenshot() {
      return Buffer.from(String(await command(base, 'GET', `${at}/screenshot`)), 'base64');
    },
  };
  let closed = false;
  return {
    session,
    driverUrl: base,
    userDataDir,
    driverLog: () => log,
    async close() {
      if (closed) return;
      closed = true;
      await command(base, 'DELETE', at).catch(() => undefined);
      const ended = new Promise<void>((resolve) => {
        if (driver.exitCode !== null) resolve();
        else driver.once('exit', () => resolve());
      });
      stop();
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
