/**
 * The decode loop of src/media/prompt-audio-decoder.ts over test doubles of a WebCodecs
 * `AudioDecoder`: one that holds every output until `flush()` (as WebKitGTK's does with AAC,
 * which left the job at `syncing` forever, issue 53) and one that emits as packets go in (as
 * Chromium's and Firefox's do). A decode of a long file must finish with every packet out, in
 * order, the held-back output given up in bounded batches; the prompt decoder is never flushed
 * mid-stream.
 */
import { describe, expect, test } from 'vitest';
import {
  FLUSH_AFTER_SILENT_PACKETS,
  MAX_DECODE_QUEUE,
  PromptOutputDecoding,
  type AudioDecoderPort,
} from '../../../src/media/prompt-audio-decoder.ts';

/** An AudioDecoder test double: takes a packet off its queue on a later task, emits it now (prompt) or at flush() (holding). */
class AudioDecoderDouble implements AudioDecoderPort<number> {
  decodeQueueSize = 0;
  state: 'configured' | 'closed' = 'configured';
  flushes = 0;
  /** The most packets decoded but not yet emitted at any time. */
  mostHeld = 0;
  /** The longest queue seen. */
  longestQueue = 0;
  private readonly held: number[] = [];
  private readonly dequeued: Array<() => void> = [];
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly holdsOutputUntilFlush: boolean,
    private readonly output: (packet: number) => void,
  ) {}

  decode(packet: number): void {
    this.decodeQueueSize++;
    this.longestQueue = Math.max(this.longestQueue, this.decodeQueueSize);
    this.pending = this.pending.then(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            this.decodeQueueSize--;
            if (this.holdsOutputUntilFlush) {
              this.held.push(packet);
              this.mostHeld = Math.max(this.mostHeld, this.held.length);
            } else this.output(packet);
            for (const listener of this.dequeued) listener();
            resolve();
          }, 0),
        ),
    );
  }

  async flush(): Promise<void> {
    await this.pending;
    this.flushes++;
    for (const packet of this.held.splice(0)) this.output(packet);
  }

  close(): void {
    this.state = 'closed';
  }

  addEventListener(_type: 'dequeue', listener: () => void): void {
    this.dequeued.push(listener);
  }
}

/** Decodes packets 0…count-1 the way mediabunny drives a custom decoder: one decode() at a time, then flush(). */
async function decodeAll(holdsOutputUntilFlush: boolean, count: number) {
  const out: number[] = [];
  const heard: { decoding?: PromptOutputDecoding<number> } = {};
  const decoder = new AudioDecoderDouble(holdsOutputUntilFlush, (packet) => {
    out.push(packet);
    heard.decoding!.noteOutput();
  });
  const decoding = (heard.decoding = new PromptOutputDecoding(decoder));
  /** Outputs that had arrived when the last packet went in. */
  let outBeforeEnd = 0;
  for (let i = 0; i < count; i++) {
    await decoding.decode(i);
    if (i === count - 1) outBeforeEnd = out.length;
  }
  await decoding.flush();
  decoding.close();
  return { out, outBeforeEnd, decoder, midStreamFlushes: decoding.midStreamFlushes };
}

describe('PromptOutputDecoding', () => {
  test('a decoder that holds its output until flush() (WebKitGTK) still decodes a long file, in bounded batches', async () => {
    const count = 1000;
    const { out, outBeforeEnd, decoder, midStreamFlushes } = await decodeAll(true, count);
    expect(out).toEqual(Array.from({ length: count }, (_, i) => i));
    // Output came out while the file was still going in, never more than a batch held back.
    expect(outBeforeEnd).toBeGreaterThan(count / 2);
    expect(midStreamFlushes).toBe(Math.floor(count / FLUSH_AFTER_SILENT_PACKETS));
    expect(decoder.mostHeld).toBeLessThanOrEqual(FLUSH_AFTER_SILENT_PACKETS);
    expect(decoder.longestQueue).toBeLessThanOrEqual(MAX_DECODE_QUEUE + 1);
  });

  test('a decoder that emits as packets go in (Chromium, Firefox) is flushed only at the end', async () => {
    const count = 1000;
    const { out, decoder, midStreamFlushes } = await decodeAll(false, count);
    expect(out).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(midStreamFlushes).toBe(0);
    expect(decoder.flushes).toBe(1);
    expect(decoder.longestQueue).toBeLessThanOrEqual(MAX_DECODE_QUEUE + 1);
  });
});
