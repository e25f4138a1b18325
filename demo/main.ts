/**
 * The demo index page: registers the service worker, lists the demo account's jobs through
 * it (`GET /api/jobs`), and creates API keys.
 *
 * @module
 */
import type { JobListItem } from '../src/contract/types.ts';
import { el, openDemoSession, showError, type DemoSession } from './session.ts';

const status = document.getElementById('status') as HTMLParagraphElement;
const refresh = document.getElementById('refresh') as HTMLButtonElement;
const table = document.getElementById('jobs') as HTMLTableElement;
const noJobs = document.getElementById('no-jobs') as HTMLParagraphElement;
const newKey = document.getElementById('new-key') as HTMLButtonElement;
const newKeyValue = document.getElementById('new-key-value') as HTMLElement;
const log = document.getElementById('log') as HTMLPreElement;

async function listJobs(session: DemoSession): Promise<void> {
  const response = await session.listJobs();
  const servedBy = response.headers.get('x-multicam-served-by') ?? 'network';
  log.textContent = `GET ${session.instance.basePath}/jobs → ${response.status} (served by ${servedBy})`;
  const body = (await response.json()) as { jobs?: JobListItem[]; error?: string };
  if (!response.ok || !body.jobs) throw new Error(body.error ?? `listJobs answered ${response.status}`);
  const tbody = table.tBodies[0] as HTMLTableSectionElement;
  tbody.replaceChildren(
    ...body.jobs.map((job) => {
      const row = el('tr');
      for (const text of [job.id, job.title, job.status, job.created_at]) row.append(el('td', String(text ?? '')));
      return row;
    }),
  );
  table.hidden = body.jobs.length === 0;
  noJobs.hidden = body.jobs.length !== 0;
}

try {
  const session = await openDemoSession();
  status.textContent = `Running: the service worker answers ${session.instance.baseUrl} (account ${session.accountId}).`;
  refresh.disabled = false;
  newKey.disabled = false;
  refresh.addEventListener('click', () => listJobs(session).catch((e: unknown) => showError(status, e)));
  newKey.addEventListener('click', () => {
    session
      .createApiKey()
      .then(({ apiKey }) => (newKeyValue.textContent = apiKey))
      .catch((e: unknown) => showError(status, e));
  });
  await listJobs(session);
  document.body.dataset['ready'] = '1';
} catch (error) {
  showError(status, error);
  document.body.dataset['ready'] = 'error';
}
