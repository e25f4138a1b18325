/**
 * WebCodecs audio decoding that never waits for output the browser is holding back.
 *
 * WebKitGTK's `AudioDecoder` (2.50, GStreamer) takes AAC packets, empties its decode queue and
 * emits no `AudioData` at all until `flush()` is called; then it emits every frame at once.
 * mediabunny's `AudioSampleSink` keeps at most 40 packets in the decoder and then waits for an
 * output to arrive before it decodes the next one, so in WebKit the first long decode waited
 * forever with no error (issue 53: the job stayed at `syncing`). This decoder is registered with
 * mediabunny (`registerDecoder`) in each worker that decodes audio: it wraps the native decoder,
 * applies back-pressure on the decode queue (the `dequeue` event) instead of on outputs, and
 * flushes once {@link FLUSH_AFTER_SILENT_PACKETS} packets went in with no output, so a decoder
 * that holds its output gives it up in bounded batches (memory stays bounded on long files).
 * Where output comes as packets go in (Chromium, Firefox) it never flushes mid-stream.
 *
 * @module
 */
import { AudioSample, CustomAudioDecoder, registerDecoder, type AudioCodec, type EncodedPacket } from 'mediabunny';
import { audioDecodable, isPcmCodec, webCodecsCapability } from './decodability.ts';

/** Packets decoded with no output before the decoder is flushed to give it up (about 4 s of AAC at 48 kHz). */
export const FLUSH_AFTER_SILENT_PACKETS = 192;
/** Packets the native decoder may hold in its queue before {@link PromptOutputDecoding.decode} waits. */
export const MAX_DECODE_QUEUE = 32;
/** How long a wait for a `dequeue` event lasts before the queue size is read again (a browser may not fire it). */
const DEQUEUE_POLL_MS = 20;

/** What {@link PromptOutputDecoding} needs of a WebCodecs `AudioDecoder` (a test double stands in for it in Node). */
export interface AudioDecoderPort<Chunk> {
  readonly decodeQueueSize: number;
  readonly state: CodecState;
  decode(chunk: Chunk): void;
  flush(): Promise<void>;
  close(): void;
  addEventListener(type: 'dequeue', listener: () => void): void;
}

/**
 * The decode loop's policy over one native decoder: call {@link noteOutput} from the decoder's
 * output callback, {@link decode} for each packet (it resolves when the next one may go in).
 */
export class PromptOutputDecoding<Chunk> {
  /** Packets decoded since the last output (or flush). */
  private silentPackets = 0;
  private wake: (() => void) | undefined;
  /** Flushes made mid-stream because output was held back (0 where the decoder emits as it goes). */
  midStreamFlushes = 0;

  constructor(
    private readonly decoder: AudioDecoderPort<Chunk>,
    private readonly options: {
      flushAfterSilentPackets?: number;
      maxDecodeQueue?: number;
      /** Called after each flush, mid-stream or asked for, once its outputs were emitted. */
      onFlushed?: () => void;
    } = {},
  ) {
    decoder.addEventListener('dequeue', () => this.wakeUp());
  }

  /** The decoder produced an output. */
  noteOutput(): void {
    this.silentPackets = 0;
    this.wakeUp();
  }

  /** Decodes `chunk`; resolves once the decoder can take the next one. */
  async decode(chunk: Chunk): Promise<void> {
    this.decoder.decode(chunk);
    this.silentPackets++;
    if (this.silentPackets >= (this.options.flushAfterSilentPackets ?? FLUSH_AFTER_SILENT_PACKETS)) {
      // Output held back: a flush makes the decoder emit what it has (every packet is a key packet in audio).
      this.midStreamFlushes++;
      await this.decoder.flush();
      this.silentPackets = 0;
      this.options.onFlushed?.();
      return;
    }
    const limit = this.options.maxDecodeQueue ?? MAX_DECODE_QUEUE;
    while (this.decoder.decodeQueueSize > limit && this.decoder.state === 'configured') await this.queueMoved();
  }

  /** Decodes what is queued and emits it. */
  async flush(): Promise<void> {
    await this.decoder.flush();
    this.silentPackets = 0;
    this.options.onFlushed?.();
  }

  close(): void {
    if (this.decoder.state !== 'closed') this.decoder.close();
    this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Resolves at the next dequeue or output, or after a short poll where neither comes. */
  private queueMoved(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeUp(), DEQUEUE_POLL_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The mediabunny decoder of every compressed audio codec: the browser's `AudioDecoder` through {@link PromptOutputDecoding}. */
class PromptAudioDecoder extends CustomAudioDecoder {
  private decoding: PromptOutputDecoding<EncodedAudioChunk> | undefined;
  /**
   * The first packet's timestamp since the last flush, and how far the first output was from it
   * (s). Chromium clamps a negative first timestamp (AAC priming before 0) to 0; mediabunny's own
   * decoder wrapper shifts the outputs back, and so does this one (not done for custom decoders).
   */
  private firstPacketS: number | null = null;
  private shiftS: number | null = null;

  static override supports(codec: AudioCodec): boolean {
    return typeof AudioDecoder === 'function' && !isPcmCodec(codec);
  }

  override async init(): Promise<void> {
    // supports() cannot ask the browser (it is synchronous): ask here, so a codec it cannot
    // decode fails with words instead of a decoder error later. Callers check first with
    // canDecodeAudio (below), which asks the browser itself.
    if ((await AudioDecoder.isConfigSupported(this.config)).supported !== true)
      throw new Error(`this browser cannot decode ${this.config.codec}`);
    const decoder = new AudioDecoder({
      output: (data) => {
        this.decoding?.noteOutput();
        const sample = new AudioSample(data);
        this.shiftS ??= this.firstPacketS === null ? 0 : this.firstPacketS - sample.timestamp;
        if (this.shiftS !== 0) sample.setTimestamp(sample.timestamp + this.shiftS);
        this.onSample(sample);
      },
      error: (error) => this.onError(error),
    });
    decoder.configure(this.config);
    this.decoding = new PromptOutputDecoding(decoder, {
      onFlushed: () => {
        this.firstPacketS = null;
        this.shiftS = null;
      },
    });
  }

  override decode(packet: EncodedPacket): Promise<void> {
    this.firstPacketS ??= packet.timestamp;
    return this.decoding!.decode(packet.toEncodedAudioChunk());
  }

  override flush(): Promise<void> {
    return this.decoding!.flush();
  }

  override close(): void {
    this.decoding?.close();
  }
}

let registered = false;

/** Registers {@link PromptAudioDecoder} with mediabunny in this worker; once, later calls do nothing. */
export function usePromptAudioDecoder(): void {
  if (registered) return;
  registered = true;
  registerDecoder(PromptAudioDecoder);
}

/**
 * Whether the browser can decode `track`'s audio: PCM always (mediabunny reads it), else the
 * browser's `AudioDecoder.isConfigSupported`. Use it instead of `track.canDecode()`, which says
 * yes to every codec once {@link usePromptAudioDecoder} has registered its decoder.
 */
export function canDecodeAudio(track: { getDecoderConfig(): Promise<AudioDecoderConfig | null> }): Promise<boolean> {
  return audioDecodable(track, webCodecsCapability);
}
