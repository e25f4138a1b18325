/**
 * The one place that launches Chromium. Every test, benchmark and the CLI goes through
 * `launchChromium`, so the flags that keep the browser off the network are never forgotten.
 *
 * @module
 */
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's Chromium; override with MULTICAM_CHROMIUM. */
export const CHROMIUM_PATH = process.env['MULTICAM_CHROMIUM'] ?? '/usr/bin/chromium';

/**
 * Flags measured on these machines: without the host-resolver rules and the background
 * networking switches Chromium keeps calling Google hosts. Nothing may leave the machine.
 * The sandbox is not switched off here: see {@link chromiumFlags}.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-features=NetworkTimeServiceQuerying',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

/** What {@link chromiumFlags} decides on: the user, the environment, the caller's wish. */
export interface SandboxContext {
  /** `process.getuid?.()`: undefined where there are no uids (Windows). */
  uid: number | undefined;
  /** The environment; `MULTICAM_CHROMIUM_NO_SANDBOX=1` switches the sandbox off. */
  env: Readonly<Record<string, string | undefined>>;
  /** The caller asks for no sandbox ({@link LaunchOptions.noSandbox}). */
  noSandbox?: boolean | undefined;
}

/**
 * The launch flags. Chromium decodes untrusted media (the user's files, whatever a page
 * fetches), so its sandbox stays on, except as root, where Chromium refuses to start with it
 * (CI and the containers these tests run in are root), or when asked explicitly.
 */
export function chromiumFlags(context: SandboxContext): string[] {
  const noSandbox =
    context.uid === 0 || context.env['MULTICAM_CHROMIUM_NO_SANDBOX'] === '1' || context.noSandbox === true;
  return [...CHROMIUM_FLAGS, ...(noSandbox ? ['--no-sandbox'] : [])];
}

export interface LaunchOptions {
  /** Extra flags, e.g. `--enable-unsafe-webgpu` for a WebGPU-path test. */
  extraArgs?: readonly string[];
  /** Switch Chromium's sandbox off even when not root (as `MULTICAM_CHROMIUM_NO_SANDBOX=1` does). */
  noSandbox?: boolean;
}

export interface LaunchedChromium {
  browser: Browser;
  /** The persistent context: a fresh profile directory that is removed on close. */
  context: BrowserContext;
  userDataDir: string;
  close(): Promise<void>;
}

/**
 * Launches Debian's Chromium with a fresh profile. Playwright's own defaults are switched
 * off (`ignoreDefaultArgs: true`) so only our flags apply; `--remote-debugging-pipe` is how
 * playwright-core talks to the browser then.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<LaunchedChromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it with "apt-get install chromium" ` +
        'or set MULTICAM_CHROMIUM to a Chromium binary.',
    );
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'multicam-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    ignoreDefaultArgs: true,
    args: [
      ...chromiumFlags({ uid: process.getuid?.(), env: process.env, noSandbox: options.noSandbox }),
      ...(options.extraArgs ?? []),
      '--remote-debugging-pipe',
      `--user-data-dir=${userDataDir}`,
      'about:blank',
    ],
    headless: true,
  });
  const browser = context.browser();
  let closed = false;
  return {
    // launchPersistentContext has no separate Browser object; callers use the context.
    browser: browser as Browser,
    context,
    userDataDir,
    async close() {
      if (closed) return;
      closed = true;
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
