import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { demoAppSite } from '../support/app-site.ts';

let chromium: LaunchedChromium;
let server: StaticServer;
beforeAll(async () => {
  server = await serveStatic(demoAppSite());
  chromium = await launchChromium();
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

test('the demo page loads cross-origin isolated from 127.0.0.1', async () => {
  const page = await chromium.context.newPage();
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('body[data-ready="1"]');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('function');
});
