/**
 * The one place that launches Firefox: Debian's stock firefox-esr, driven by puppeteer-core
 * over WebDriver BiDi (Playwright would need its own patched Firefox build). Like
 * src/cli/chromium.ts, it owns the settings that keep the browser off the network, so no test
 * or tool forgets them.
 *
 * @module
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's Firefox ESR; override with MULTICAM_FIREFOX. */
export const FIREFOX_PATH = process.env['MULTICAM_FIREFOX'] ?? '/usr/bin/firefox-esr';

/**
 * A proxy address where nothing listens. Every request that is not to loopback goes there and
 * fails, and with a proxy Firefox resolves no names itself: the counterpart of Chromium's
 * `--host-resolver-rules=MAP * ~NOTFOUND`. Loopback is never proxied
 * (`network.proxy.allow_hijacking_localhost` stays false).
 */
const DEAD_PROXY = { host: '127.0.0.1', port: 9 };

/**
 * Preferences on top of puppeteer's own test profile (which already switches off Normandy,
 * safe browsing, health reports, search updates and the like): nothing may leave the machine.
 */
export const FIREFOX_PREFS: Readonly<Record<string, string | number | boolean>> = {
  // All traffic but loopback goes to a dead proxy; no DNS over HTTPS, no prefetching.
  'network.proxy.type': 1,
  'network.proxy.http': DEAD_PROXY.host,
  'network.proxy.http_port': DEAD_PROXY.port,
  'network.proxy.ssl': DEAD_PROXY.host,
  'network.proxy.ssl_port': DEAD_PROXY.port,
  'network.proxy.socks': DEAD_PROXY.host,
  'network.proxy.socks_port': DEAD_PROXY.port,
  'network.proxy.socks_remote_dns': true,
  'network.proxy.no_proxies_on': '',
  'network.proxy.allow_hijacking_localhost': false,
  'network.trr.mode': 5,
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.predictor.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  // Updates of the browser, its add-ons and its lists.
  'app.update.enabled': false,
  'app.update.auto': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'extensions.blocklist.enabled': false,
  'browser.region.update.enabled': false,
  'browser.region.network.url': '',
  'geo.provider.network.url': '',
  'security.OCSP.enabled': 0,
  'security.remote_settings.crlite_filters.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  // Reports and telemetry.
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'datareporting.usage.uploadEnabled': false,
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'browser.ping-centre.telemetry': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  'identity.fxaccounts.enabled': false,
  'extensions.pocket.enabled': false,
  'browser.discovery.enabled': false,
  'browser.topsites.contile.enabled': false,
  'breakpad.reportURL': '',
  'browser.tabs.crashReporting.sendReport': false,
};

export interface FirefoxLaunchOptions {
  /** Where clicked downloads are saved, without asking (default: a `downloads` folder in the profile). */
  downloadDir?: string;
  /** Further preferences, e.g. to switch a feature on for one test. */
  extraPrefs?: Readonly<Record<string, string | number | boolean>>;
  /**
   * How long one protocol call may take, in ms (puppeteer's default 180 000). A `waitForFunction`
   * is one call over BiDi, so a test that waits longer for a page must raise this.
   */
  protocolTimeout?: number;
}

export interface LaunchedFirefox {
  browser: Browser;
  /** The persistent profile: a fresh directory that is removed on close. */
  userDataDir: string;
  /** Where clicked downloads land. */
  downloadDir: string;
  close(): Promise<void>;
}

/**
 * Launches Debian's Firefox ESR headless with a fresh profile, over WebDriver BiDi.
 *
 * @example
 * ```ts
 * const firefox = await launchFirefox();
 * const page = await firefox.browser.newPage();
 * await page.goto('http://127.0.0.1:5173/');
 * await firefox.close();
 * ```
 */
export async function launchFirefox(options: FirefoxLaunchOptions = {}): Promise<LaunchedFirefox> {
  if (!existsSync(FIREFOX_PATH)) {
    throw new Error(
      `Firefox not found at ${FIREFOX_PATH}. Install it with "apt-get install firefox-esr" ` +
        'or set MULTICAM_FIREFOX to a Firefox binary.',
    );
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'multicam-firefox-'));
  const downloadDir = options.downloadDir ?? join(userDataDir, 'downloads');
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: true,
      userDataDir,
      // Puppeteer's BiDi layer sets no download folder on the default context: the profile does.
      extraPrefsFirefox: {
        ...FIREFOX_PREFS,
        'browser.download.dir': downloadDir,
        'browser.download.folderList': 2,
        'browser.download.useDownloadDir': true,
        'browser.download.always_ask_before_handling_new_types': false,
        'browser.download.start_downloads_in_tmp_dir': false,
        ...options.extraPrefs,
      },
      // No crash reports leave the machine either.
      env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
      ...(options.protocolTimeout === undefined ? {} : { protocolTimeout: options.protocolTimeout }),
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  let closed = false;
  return {
    browser,
    userDataDir,
    downloadDir,
    async close() {
      if (closed) return;
      closed = true;
      await browser.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
