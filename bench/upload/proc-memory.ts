/**
 * Memory of a Chromium process tree, read from /proc (Linux): the browser process is the one
 * whose command line names our profile directory; its descendants are the renderers, the
 * GPU/utility processes and the service worker's process.
 *
 * @module
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Sum over the tree: RSS (counts shared pages once per process) and PSS (shares them out). */
export interface TreeMemory {
  processes: number;
  rssBytes: number;
  pssBytes: number;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // the process exited between listing and reading
  }
}

function kb(text: string | null, field: string): number {
  const match = text === null ? null : new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Pids of the browser process started with `--user-data-dir=<userDataDir>` and all its descendants. */
export function chromiumTree(userDataDir: string): number[] {
  const parents = new Map<number, number>();
  const roots: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = read(`/proc/${pid}/stat`);
    if (stat === null) continue;
    // Field 4 (ppid) comes after the parenthesised command name, which may contain spaces.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(pid, ppid);
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (cmdline?.includes(`--user-data-dir=${userDataDir}`) && !cmdline.includes('--type=')) roots.push(pid);
  }
  const tree = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Current memory of the tree. */
export function treeMemory(pids: readonly number[]): TreeMemory {
  let rssBytes = 0;
  let pssBytes = 0;
  let processes = 0;
  for (const pid of pids) {
    const status = read(`/proc/${pid}/status`);
    if (status === null) continue;
    processes++;
    rssBytes += kb(status, 'VmRSS');
    pssBytes += kb(read(`/proc/${pid}/smaps_rollup`), 'Pss');
  }
  return { processes, rssBytes, pssBytes };
}

/** Samples the tree every `intervalMs` and keeps the peaks; `stop()` returns them. */
export function samplePeakMemory(userDataDir: string, intervalMs = 250): { stop(): TreeMemory & { samples: number } } {
  const peak = { processes: 0, rssBytes: 0, pssBytes: 0, samples: 0 };
  const sample = (): void => {
    const now = treeMemory(chromiumTree(userDataDir));
    peak.samples++;
    peak.processes = Math.max(peak.processes, now.processes);
    peak.rssBytes = Math.max(peak.rssBytes, now.rssBytes);
    peak.pssBytes = Math.max(peak.pssBytes, now.pssBytes);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { ...peak };
    },
  };
}
