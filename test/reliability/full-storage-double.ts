/**
 * A TEST DOUBLE of full storage for fake-indexeddb: while it is on, every `put`/`add` on any
 * object store makes its transaction abort with `QuotaExceededError` at commit, as Chromium
 * does when the origin's quota is used up (the whole transaction is rolled back).
 *
 * @module
 */
import { IDBObjectStore } from 'fake-indexeddb';

/** The internals of fake-indexeddb's transaction the double hooks into. */
interface FakeTransaction {
  quotaRefused?: boolean;
  error: DOMException | null;
  _state: string;
  _requests: unknown[];
  _start(): void;
  _abort(name: string): void;
}

/** Switches full storage on and off; `install` patches the fake's object store, `uninstall` restores it. */
export class FullStorageDouble {
  on = false;
  /** How many writes were refused. */
  refused = 0;
  private original: { put: IDBObjectStore['put']; add: IDBObjectStore['add'] } | null = null;

  install(): void {
    const proto = IDBObjectStore.prototype;
    // The double swaps the prototype's own methods and calls them back with their `this`.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const original = { put: proto.put, add: proto.add };
    this.original = original;
    const isOn = (): boolean => this.on;
    // As in Chromium, the write itself succeeds and the commit fails: the transaction aborts
    // with QuotaExceededError, so everything it wrote is rolled back.
    const refuse = (store: IDBObjectStore, request: IDBRequest): IDBRequest => {
      this.refused++;
      // fake-indexeddb commits from `_start` once no request is left: abort there instead.
      const transaction = store.transaction as unknown as FakeTransaction;
      if (!transaction.quotaRefused) {
        transaction.quotaRefused = true;
        // eslint-disable-next-line @typescript-eslint/unbound-method -- called back with its own `this`
        const start = transaction._start;
        transaction._start = function (this: FakeTransaction) {
          if (this._requests.length === 0 && this._state !== 'finished' && !this.error)
            return this._abort('QuotaExceededError');
          return start.call(this);
        };
      }
      return request;
    };
    proto.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      const request = original.put.apply(this, args);
      return isOn() ? refuse(this, request) : request;
    };
    proto.add = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['add']>) {
      const request = original.add.apply(this, args);
      return isOn() ? refuse(this, request) : request;
    };
  }

  uninstall(): void {
    if (!this.original) return;
    IDBObjectStore.prototype.put = this.original.put;
    IDBObjectStore.prototype.add = this.original.add;
    this.original = null;
  }
}
