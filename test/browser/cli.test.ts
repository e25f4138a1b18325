/**
 * The command line end to end: `node bin/multicam.mjs edit` on the tiny fixture builds (if
 * needed) and serves the app, runs the whole job in a headless Chromium (upload through the
 * signed URLs, syncing, diarizing, mapping from the camera map or a guess, a recut with the
 * preset, rendering) and writes the video to -o. Also: usage mistakes exit 2 naming the
 * option, and a damaged camera file exits 1 with the job's error.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { ensureFixture, FIXTURE_TIMEOUT_MS } from '../support/fixtures.ts';
import { patient } from '../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'test-results/cli');
let fixtureDir: string;
let cameras: string[];
/** The same cameras as devices write them (issue 52's matrix), for the end-to-end edit. */
let deviceCameras: string[];

/**
 * How four of the tiny fixture's six cameras are rewritten, as cameras, phones and OBS write
 * files (x264's default keyframe spacing, 250 frames): a 29.97 fps MP4 with timecode
 * 01:00:00;00, a 25 fps MOV with 44.1 kHz AAC, a 23.976 fps MKV with Opus, and a variable-rate
 * MP4 (every 9th frame dropped). The other two stay 30 fps MP4.
 */
const DEVICE_WRITTEN: Record<string, { file: string; args: string[] }> = {
  'cam1.mp4': { file: 'cam1-2997.mp4', args: ['-r', '30000/1001', '-timecode', '01:00:00;00', '-c:a', 'aac'] },
  'cam2.mp4': { file: 'cam2-25.mov', args: ['-r', '25', '-c:a', 'aac', '-ar', '44100'] },
  'cam3.mp4': { file: 'cam3-23976.mkv', args: ['-r', '24000/1001', '-c:a', 'libopus'] },
  'cam4.mp4': { file: 'cam4-vfr.mp4', args: ['-vf', "select='mod(n\\,9)'", '-vsync', 'vfr', '-c:a', 'aac'] },
};
const deviceName = (file: string): string => DEVICE_WRITTEN[file]?.file ?? file;

/** Frames per second as ffprobe gives them (`30000/1001`), for every video stream of `file`. */
function videoRate(file: string): string {
  return execFileSync(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=r_frame_rate', '-of', 'csv=p=0', file],
    { encoding: 'utf8' },
  ).trim();
}

function runCli(
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok, fail) => {
    const child = spawn('node', [join(ROOT, 'bin/multicam.mjs'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, stdout, stderr });
    });
  });
}

function probe(file: string): { codecs: string[]; durationS: number; width: number } {
  const json = JSON.parse(
    execFileSync(
      'ffprobe',
      ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name,width', '-of', 'json', file],
      { encoding: 'utf8' },
    ),
  ) as {
    format: { duration: string };
    streams: Array<{ codec_name: string; width?: number }>;
  };
  return {
    codecs: json.streams.map((s) => s.codec_name).sort(),
    durationS: Number(json.format.duration),
    width: json.streams.find((s) => s.width)?.width ?? 0,
  };
}

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  fixtureDir = (await ensureFixture('tiny')).dir;
  cameras = readdirSync(fixtureDir)
    .filter((f) => /^cam\d+\.mp4$/.test(f))
    .sort()
    .map((f) => join(fixtureDir, f));
  const matrix = join(OUT, 'device-written');
  mkdirSync(matrix, { recursive: true });
  deviceCameras = cameras.map((cam) => {
    const name = cam.slice(cam.lastIndexOf('/') + 1);
    const device = DEVICE_WRITTEN[name];
    if (!device) return cam;
    const out = join(matrix, device.file);
    if (!existsSync(out))
      execFileSync('ffmpeg', [
        '-v',
        'error',
        '-y',
        '-i',
        cam,
        ...device.args,
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        out,
      ]);
    return out;
  });
}, FIXTURE_TIMEOUT_MS);

test(
  'usage mistakes exit 2 and name the option at fault',
  async () => {
    const noOutput = await runCli(['edit', cameras[0]!, cameras[1]!], 60_000);
    expect(noOutput.code).toBe(2);
    expect(noOutput.stderr).toContain('-o out.mp4 is required');
    const badPreset = await runCli(
      ['edit', cameras[0]!, cameras[1]!, '--preset', 'fast', '-o', join(OUT, 'x.mp4')],
      60_000,
    );
    expect(badPreset.code).toBe(2);
    expect(badPreset.stderr).toContain('--preset must be one of relaxed, balanced, dynamic (got "fast")');
    const badMap = await runCli(
      ['edit', cameras[0]!, cameras[1]!, '--map', 'nope.mp4=SPEAKER_00', '-o', join(OUT, 'x.mp4')],
      60_000,
    );
    expect(badMap.code).toBe(2);
    expect(badMap.stderr).toContain('"nope.mp4" is none of the videos (1 cam1.mp4, 2 cam2.mp4)');
    const missing = await runCli(['edit', cameras[0]!, join(fixtureDir, 'nope.mp4'), '-o', join(OUT, 'x.mp4')], 60_000);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('videos[1]');
    const noBrowser = await runCli(['edit', cameras[0]!, cameras[1]!, '-o', join(OUT, 'x.mp4')], 60_000, {
      MULTICAM_CHROMIUM: '/nonexistent/chromium',
    });
    expect(noBrowser.code).toBe(3);
    expect(noBrowser.stderr).toContain('no Chromium found (tried /nonexistent/chromium)');
  },
  patient(120_000),
);

/**
 * The `--map` options a person gives after the CLI asked: each speaker the CLI listed is the
 * fixture speaker talking in the example turn it printed, and goes on that speaker's cameras.
 */
function mapFromAsk(stdout: string): string[] {
  const truth = JSON.parse(readFileSync(join(fixtureDir, 'truth.json'), 'utf8')) as {
    turns: Array<{ speaker: string; startMs: number; endMs: number }>;
    sources: Array<{ file: string; kind: string; shows?: string[] }>;
  };
  const seconds = (clock: string): number => {
    const [m, s] = clock.split(':').map(Number) as [number, number];
    return m * 60 + s;
  };
  const whoIs = new Map<string, string>();
  for (const [, id, from, to] of stdout.matchAll(/^ {2}(\S+): \d+ s of speech, e\.g\. (\d+:\d\d)–(\d+:\d\d)$/gm)) {
    const midMs = ((seconds(from!) + seconds(to!)) / 2) * 1000;
    const turn = truth.turns.find((t) => t.startMs <= midMs && midMs <= t.endMs);
    if (turn) whoIs.set(id!, turn.speaker);
  }
  return truth.sources
    .filter((s) => s.kind === 'video')
    .flatMap((s) => {
      const ids = [...whoIs].filter(([, spk]) => s.shows?.includes(spk)).map(([id]) => id);
      return ids.length > 0 ? ['--map', `${deviceName(s.file)}=${ids.join(',')}`] : [];
    });
}

test(
  "edits the tiny fixture, its cameras as devices write them, end to end: too short to judge, it asks instead of guessing; with --map it writes a playable video at the main camera's rate, and exports at that rate with each clip's own timecode",
  async () => {
    const output = join(OUT, 'tiny.mp4');
    rmSync(output, { force: true });
    const common = [
      'edit',
      ...deviceCameras,
      '--preset',
      'relaxed',
      '--silence',
      'tighten',
      '-o',
      output,
      '--timeout',
      '540',
    ];
    // 20 s is too little for the camera map: no guess is rendered; the speakers heard are listed.
    const asked = await runCli(common, 600_000);
    writeFileSync(join(OUT, 'tiny-ask.log'), `${asked.stdout}\n--- stderr\n${asked.stderr}`);
    expect(asked.code, `${asked.stdout}\n${asked.stderr}`).toBe(4);
    expect(asked.stdout).toContain('never renders a guess');
    expect(asked.stdout).toContain('--map cam1-2997.mp4=');
    expect(existsSync(output)).toBe(false);
    const map = mapFromAsk(asked.stdout);
    expect(map.length, asked.stdout).toBeGreaterThanOrEqual(4);
    const exportsAsked = ['--export', 'fcpxml,xmeml,otio,edl'];
    for (const ext of ['fcpxml', 'xml', 'otio', 'edl']) rmSync(output.replace(/\.mp4$/, `.${ext}`), { force: true });
    const run = await runCli([...common, ...map, ...exportsAsked], 600_000);
    writeFileSync(join(OUT, 'tiny.log'), `${run.stdout}\n--- stderr\n${run.stderr}`);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/mapping from --map: cam1-2997\.mp4 → SPEAKER_\d\d/);
    // Every stage shows up as a progress line, in order.
    const stages = ['syncing', 'diarizing', 'mapping', 'ready', 'rendering', 'complete'].map((s) =>
      run.stdout.search(new RegExp(`\\] ${s}\\b`)),
    );
    expect(
      stages.every((i) => i >= 0),
      run.stdout,
    ).toBe(true);
    expect([...stages].sort((a, b) => a - b)).toEqual(stages);
    expect(run.stdout).toContain('recut with preset relaxed');
    expect(existsSync(output)).toBe(true);
    expect(existsSync(`${output}.part`)).toBe(false);
    const media = probe(output);
    expect(media.codecs).toEqual(['aac', 'h264']);
    // The render runs at the main camera's own rate (one of the cameras' rates, exact: 30000/1001,
    // not 30), and --export wrote each edit beside -o at that same rate.
    const rate = videoRate(output);
    expect(deviceCameras.map(videoRate)).toContain(rate);
    const [num, den] = rate.split('/').map(Number) as [number, number];
    const fcpxml = readFileSync(output.replace(/\.mp4$/, '.fcpxml'), 'utf8');
    expect(fcpxml).toContain(den === 1 ? `frameDuration="1/${num}s"` : `frameDuration="${den}/${num}s"`);
    // Each clip's own timecode: the EDL's events from the 29.97 fps camera (timecode 01:00:00;00)
    // start at 01:…, the others at 00:… (their files carry none).
    const edl = readFileSync(output.replace(/\.mp4$/, '.edl'), 'utf8');
    const events = [...edl.matchAll(/^\d{3} +\S+ +\S+ +\S+ +(\d\d):\S+ \S+ \S+ \S+\n\* FROM CLIP NAME: (\S+)$/gm)].map(
      ([, hour, file]) => ({ hour, file }),
    );
    expect(events.length, edl).toBeGreaterThan(2);
    for (const e of events) expect(e.hour, `${e.file} in\n${edl}`).toBe(e.file === 'cam1-2997.mp4' ? '01' : '00');
    expect(readFileSync(output.replace(/\.mp4$/, '.xml'), 'utf8')).toContain('<xmeml');
    expect(JSON.parse(readFileSync(output.replace(/\.mp4$/, '.otio'), 'utf8'))).toMatchObject({
      OTIO_SCHEMA: expect.stringMatching(/^Timeline/),
    });
    expect(readFileSync(output.replace(/\.mp4$/, '.edl'), 'utf8')).toMatch(/^TITLE: /);
    // The tiny conversation is ~20 s; silence tightening may only shorten it.
    expect(media.durationS).toBeGreaterThan(8);
    expect(media.durationS).toBeLessThan(30);
  },
  patient(1_200_000),
);

test(
  'a damaged camera file exits 1 with the job error naming the source',
  async () => {
    const damaged = join(OUT, 'damaged.mp4');
    // An upload cut off at 30 % of an MP4 whose index (moov) is at the end, as a camera writes it.
    const moovLast = join(OUT, 'moov-last.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', cameras[1]!, '-c', 'copy', moovLast]);
    const bytes = readFileSync(moovLast);
    writeFileSync(damaged, bytes.subarray(0, Math.floor(bytes.length * 0.3)));
    const run = await runCli(
      ['edit', cameras[0]!, damaged, '-o', join(OUT, 'damaged-out.mp4'), '--timeout', '240'],
      300_000,
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stdout).toMatch(/the job failed at syncing: .+/);
    expect(run.stdout).toContain('damaged');
    expect(existsSync(join(OUT, 'damaged-out.mp4'))).toBe(false);
  },
  patient(300_000),
);
