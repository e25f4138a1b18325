/**
 * The settings page: create and revoke API keys, show and rotate the webhook signing secret.
 * Every value is put on screen with textContent.
 *
 * @module
 */
import { el, openDemoSession, showError, type DemoSession } from './session.ts';

const status = document.getElementById('status') as HTMLParagraphElement;
const createKey = document.getElementById('create-key') as HTMLButtonElement;
const createdKey = document.getElementById('created-key') as HTMLParagraphElement;
const createdKeyValue = document.getElementById('created-key-value') as HTMLElement;
const keys = document.getElementById('keys') as HTMLTableSectionElement;
const secrets = document.getElementById('secrets') as HTMLUListElement;
const rotate = document.getElementById('rotate') as HTMLButtonElement;

/** Lists the account's keys; `newKeyId` marks the key just created (`data-new`). */
async function renderKeys(session: DemoSession, newKeyId?: string): Promise<void> {
  const list = await session.instance.accounts.listApiKeys(session.accountId);
  keys.replaceChildren(
    ...list.map((key) => {
      const row = el('tr', undefined, { 'data-key-id': key.keyId });
      if (key.keyId === newKeyId) row.dataset['new'] = '1';
      row.append(
        el('td', `${key.prefix}…`),
        el('td', key.createdAt),
        el('td', key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`),
      );
      const cell = el('td');
      if (key.revokedAt === null) {
        const revoke = el('button', 'Revoke', { type: 'button' });
        revoke.addEventListener('click', () => {
          revoke.disabled = true;
          session.instance.accounts
            .revokeApiKey(key.keyId)
            .then(() => renderKeys(session))
            .catch((e: unknown) => showError(status, e));
        });
        cell.append(revoke);
      }
      row.append(cell);
      return row;
    }),
  );
}

async function renderSecrets(session: DemoSession): Promise<void> {
  const list = await session.instance.accounts.signingSecrets(session.accountId);
  secrets.replaceChildren(
    ...list.map((secret, i) => el('li', `${secret}${i === 0 ? ' (current)' : ' (previous, still accepted)'}`)),
  );
}

try {
  const session = await openDemoSession();
  status.textContent = `Account ${session.accountId}`;
  createKey.disabled = false;
  rotate.disabled = false;
  createKey.addEventListener('click', () => {
    session
      .createApiKey()
      .then(async ({ apiKey, keyId }) => {
        createdKeyValue.textContent = apiKey;
        createdKey.hidden = false;
        await renderKeys(session, keyId);
      })
      .catch((e: unknown) => showError(status, e));
  });
  rotate.addEventListener('click', () => {
    session.instance.accounts
      .rotateSigningSecret(session.accountId)
      .then(() => renderSecrets(session))
      .catch((e: unknown) => showError(status, e));
  });
  await Promise.all([renderKeys(session), renderSecrets(session)]);
  document.body.dataset['ready'] = '1';
} catch (error) {
  showError(status, error);
  document.body.dataset['ready'] = 'error';
}
