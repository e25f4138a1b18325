/**
 * The demo pages (the shared app build, test/support/app-site.ts): the index page registers the service worker and
 * lists jobs through it, `window.multicam.createApiKey()` works, and the settings page
 * creates and revokes API keys and rotates the signing secret. Data is shown as text only.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { demoAppSite } from '../support/app-site.ts';

const SHOTS = join(resolve(import.meta.dirname, '../..'), 'test-results/demo');
let chromium: LaunchedChromium;
let server: StaticServer;
let page: Page;

beforeAll(async () => {
  server = await serveStatic(demoAppSite());
  chromium = await launchChromium();
  page = await chromium.context.newPage();
  page.on('pageerror', (error) => console.error('[demo page]', error));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('body[data-ready]');
  // The contract's details (log, jobs, API key) are in the developer panel.
  await page.click('#developer > summary');
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

test('the demo page runs the service worker and lists jobs through it', async () => {
  expect(await page.getAttribute('body', 'data-ready'), (await page.textContent('#status')) ?? '').toBe('1');
  expect(await page.textContent('#log')).toMatch(/GET \/api\/jobs → 200 \(served by service-worker\)/);
  expect(await page.isVisible('#no-jobs')).toBe(true);
});

test('the demo page runs the engine: it holds the engine Web Lock', async () => {
  const held = await page.evaluate(async () => {
    const multicam = (
      window as unknown as { multicam: { instance: { engine: { started: Promise<void>; active: boolean } | null } } }
    ).multicam;
    await multicam.instance.engine?.started;
    const state = await navigator.locks.query();
    return { active: multicam.instance.engine?.active ?? false, locks: (state.held ?? []).map((lock) => lock.name) };
  });
  expect(held.active).toBe(true);
  expect(held.locks).toContain('multicam-engine');
});

test('window.multicam.createApiKey() returns a working key', async () => {
  const status = await page.evaluate(async () => {
    const multicam = (window as unknown as { multicam: { createApiKey(): Promise<{ apiKey: string }> } }).multicam;
    const { apiKey } = await multicam.createApiKey();
    const res = await fetch('/api/jobs', { headers: { authorization: `Bearer ${apiKey}` } });
    return { apiKey, status: res.status };
  });
  expect(status.apiKey).toMatch(/^mc_live_/);
  expect(status.status).toBe(200);
});

test('a job title with markup is shown as text', async () => {
  const title = '<img src=x id=injected onerror="document.title=1">';
  await page.evaluate(async (t) => {
    const multicam = (window as unknown as { multicam: { apiKey: string } }).multicam;
    const res = await fetch('/api/jobs', {
      method: 'POST',
      headers: { authorization: `Bearer ${multicam.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: t, sources: [{ label: 'A' }, { label: 'B' }] }),
    });
    if (res.status !== 200) throw new Error(`createJob answered ${res.status}: ${await res.text()}`);
  }, title);
  await page.click('#refresh');
  await page.waitForSelector('#jobs:not([hidden])');
  expect(await page.textContent('#jobs tbody')).toContain(title);
  expect(await page.$('#injected')).toBeNull();
});

test('the settings page creates and revokes keys and rotates the signing secret', async () => {
  await page.goto(`${server.origin}/demo/settings.html`);
  await page.waitForSelector('body[data-ready="1"]');
  mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(SHOTS, 'settings.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SHOTS, 'settings-narrow.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  const activeBefore = await page.locator('#keys tr', { hasText: 'active' }).count();
  await page.click('#create-key');
  await page.waitForSelector('#created-key:not([hidden])');
  expect(await page.textContent('#created-key-value')).toMatch(/^mc_live_/);
  await expect.poll(() => page.locator('#keys tr', { hasText: 'active' }).count()).toBe(activeBefore + 1);

  // Revoke the newest key and check the worker now refuses it.
  const newKey = (await page.textContent('#created-key-value')) as string;
  const row = page.locator('#keys tr[data-new="1"]');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect.poll(() => page.locator('#keys tr', { hasText: 'revoked' }).count()).toBeGreaterThan(0);
  const status = await page.evaluate(
    async (key) => (await fetch('/api/jobs', { headers: { authorization: `Bearer ${key}` } })).status,
    newKey,
  );
  expect(status).toBe(401);

  const before = await page.textContent('#secrets li:first-child');
  expect(before).toMatch(/^whsec_/);
  await page.click('#rotate');
  await expect.poll(() => page.locator('#secrets li').count()).toBe(2);
  expect(await page.textContent('#secrets li:first-child')).not.toBe(before);
  expect(await page.textContent('#secrets li:nth-child(2)')).toContain((before as string).replace(' (current)', ''));
});
