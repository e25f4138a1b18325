// Layering check (issues 33, 54): no import in src/, workers/ or demo/ runs back up the rooms,
// and none draws an arrow the fence table forbids.
//
// Every .ts file under src/, workers/ and demo/ is read, its relative imports (static
// `import … from`, side-effect `import '…'`, `export … from` and dynamic `import('…')`) are
// resolved, and each file is mapped to its room by LAYERS below. Three rules, in this order:
//
// 1. FORBIDDEN: an arrow of the fence table (pages never open the store; routes and the engine
//    never import each other; workers never import the engine) is a violation, with its why.
// 2. The entry rooms (library index, page, service worker, CLI, workers) sit side by side on
//    top: each may import only the rooms its `mayImport` names (and itself).
// 3. Every other room may import itself and any room below it in LAYERS, never one above.
//
// An import of a src/ file that is in no room, or of tools/, test/, bench/, eval/ or scripts/,
// is a violation too. Plain Node, no dependencies.
//
//   node scripts/check-layers.mjs      exit 1 listing every violation, else 0
//
// The unit tier runs `findLayerViolations` and tries every forbidden arrow on a made-up graph
// (test/node/architecture/layers.test.ts), and `npm run check` runs this script.
// docs/architecture.md draws the same rooms and prints the same table.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One room of six folders below the entry rooms that do media work: they import each other freely. */
const MEDIA = 'media, vision, render, models, export, client';

/**
 * The rooms, top to bottom. An entry of `paths` is a folder (every file under it) or a single
 * file, relative to the repository root. A room with `mayImport` may import only the rooms it
 * names (each must be below it); a room without may import every room below it.
 *
 * @type {ReadonlyArray<{ name: string, paths: readonly string[], mayImport?: readonly string[] }>}
 */
export const LAYERS = [
  // The entry rooms: what a bundle or a process starts from. None imports another.
  {
    name: 'library index',
    paths: ['src/index.ts'],
    mayImport: ['service', 'routes', 'engine', 'jobs', 'webhooks', 'store', 'auth', MEDIA, 'analysis', 'contract'],
  },
  {
    // The page library (multicam/dom) and the demo pages: they reach jobs through the service and
    // the client, events through the webhooks' page API, never the database.
    name: 'page',
    paths: ['src/dom', 'demo'],
    mayImport: ['service', 'routes', 'engine', 'webhooks', MEDIA, 'analysis', 'contract'],
  },
  { name: 'service worker', paths: ['src/sw'], mayImport: ['service', 'routes', 'engine', 'contract'] },
  // The Node side: the command line and the Vite plugin (which copies the CLI's package assets).
  { name: 'CLI', paths: ['src/cli', 'src/vite'], mayImport: ['engine', MEDIA, 'analysis', 'contract'] },
  // The worker entries: each exposes its room's service (speaker detection, media, vision, render).
  { name: 'workers', paths: ['workers'], mayImport: ['speakers', MEDIA, 'analysis', 'contract'] },
  // Below the entry rooms, the order: a room may import any room below it.
  { name: 'service', paths: ['src/service.ts'] },
  { name: 'routes', paths: ['src/routes'] },
  { name: 'engine', paths: ['src/pipeline'] },
  { name: 'jobs', paths: ['src/jobs'] },
  { name: 'webhooks', paths: ['src/webhooks'] },
  { name: 'store', paths: ['src/store'] },
  { name: 'auth', paths: ['src/auth'] },
  // Speaker detection (the analysis worker's service, its protocol and VAD lanes): it places,
  // mixes and reads signals through the media room and runs the pure diarization.
  { name: 'speakers', paths: ['src/speakers'] },
  { name: MEDIA, paths: ['src/media', 'src/vision', 'src/render', 'src/models', 'src/export', 'src/client'] },
  { name: 'analysis', paths: ['src/analysis'] },
  { name: 'contract', paths: ['src/contract'] },
];

/**
 * Arrows that must never be drawn, whatever the order or a `mayImport` says, each with the
 * reason it is off.
 *
 * @type {ReadonlyArray<{ from: string, to: string, why: string }>}
 */
export const FORBIDDEN = [
  {
    from: 'page',
    to: 'store',
    why: 'pages never open the store: read jobs through the client or the service, events through the webhooks page API',
  },
  {
    from: 'routes',
    to: 'engine',
    why: 'routes and the engine never import each other: what both need lives in src/jobs/',
  },
  {
    from: 'engine',
    to: 'routes',
    why: 'routes and the engine never import each other: what both need lives in src/jobs/',
  },
  {
    from: 'workers',
    to: 'engine',
    why: 'workers never import the engine: a worker protocol lives beside its room (src/media/, src/vision/, src/render/)',
  },
];

/** Folders shipped code must never import. */
export const OFF_LIMITS = ['tools', 'test', 'bench', 'eval', 'scripts'];

/** Folders whose .ts files are checked. */
const SCANNED = ['src', 'workers', 'demo'];

/**
 * What is wrong with the table itself: a `mayImport` or a forbidden arrow that names no room,
 * a `mayImport` of a room above, a forbidden arrow that a `mayImport` allows. Empty when sound.
 * @param {typeof LAYERS} layers
 * @param {typeof FORBIDDEN} forbidden
 * @returns {string[]}
 */
export function tableProblems(layers = LAYERS, forbidden = FORBIDDEN) {
  const index = new Map(layers.map((layer, i) => [layer.name, i]));
  /** @type {string[]} */
  const problems = [];
  layers.forEach((layer, i) => {
    for (const name of layer.mayImport ?? []) {
      const j = index.get(name);
      if (j === undefined) problems.push(`${layer.name} may import '${name}', which is no room`);
      else if (j <= i) problems.push(`${layer.name} may import ${name}, which is not below it`);
    }
  });
  for (const arrow of forbidden) {
    for (const end of [arrow.from, arrow.to])
      if (!index.has(end))
        problems.push(`the forbidden arrow ${arrow.from} → ${arrow.to} names '${end}', which is no room`);
    const from = layers[index.get(arrow.from) ?? -1];
    if (from?.mayImport?.includes(arrow.to))
      problems.push(`${arrow.from} may import ${arrow.to}, which the fence table forbids`);
  }
  return problems;
}

/**
 * The room index of a root-relative posix path (0 = top), or -1 when no room holds it.
 * @param {string} path
 * @returns {number}
 */
export function layerOf(path) {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, index) => {
    for (const entry of layer.paths) {
      const holds = path === entry || path.startsWith(`${entry}/`);
      if (holds && entry.length > bestLength) {
        best = index;
        bestLength = entry.length;
      }
    }
  });
  return best;
}

/**
 * Why room `own` may not import room `theirs` (indices into LAYERS), or null when it may.
 * @param {number} own
 * @param {number} theirs
 * @returns {string | null}
 */
export function arrowProblem(own, theirs) {
  if (own === theirs) return null;
  const from = /** @type {(typeof LAYERS)[number]} */ (LAYERS[own]);
  const to = /** @type {(typeof LAYERS)[number]} */ (LAYERS[theirs]);
  const fence = FORBIDDEN.find((arrow) => arrow.from === from.name && arrow.to === to.name);
  if (fence) return `${from.name} imports ${to.name}: ${fence.why}`;
  if (from.mayImport) {
    return from.mayImport.includes(to.name)
      ? null
      : `${from.name} imports ${to.name}; it may import only ${from.mayImport.join('; ') || 'itself'}`;
  }
  return theirs < own
    ? `${from.name} (room ${own + 1}) imports ${to.name} (room ${theirs + 1}), which is above it`
    : null;
}

/**
 * `text` with comments replaced by spaces (newlines kept, so offsets and line numbers stay),
 * strings and template literals kept. A `/` opens a regular expression after an operator,
 * an opening bracket, a comma or a keyword such as `return`, so quotes inside one are not
 * taken for strings.
 * @param {string} text
 * @returns {string}
 */
export function blankComments(text) {
  const out = text.split('');
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  let last = ''; // last significant code character
  let word = ''; // last identifier or keyword
  const regexAfterWord = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'void', 'yield', 'await']);
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\') i++;
        else if (c !== '`' && text[i] === '\n') break;
        i++;
      }
      i++;
      last = c;
      word = '';
    } else if (c === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last) || regexAfterWord.has(word))) {
      i++;
      let inClass = false;
      while (i < text.length && text[i] !== '\n') {
        if (text[i] === '\\') i++;
        else if (text[i] === '[') inClass = true;
        else if (text[i] === ']') inClass = false;
        else if (text[i] === '/' && !inClass) break;
        i++;
      }
      i++;
      last = '/';
      word = '';
    } else {
      if (/[A-Za-z0-9_$]/.test(c)) {
        word = /[A-Za-z0-9_$]/.test(last) ? word + c : c;
        last = c;
      } else if (!/\s/.test(c)) {
        last = c;
        word = '';
      }
      i++;
    }
  }
  return out.join('');
}

/**
 * The module specifiers a file imports, with the 1-based line of each.
 * @param {string} text
 * @returns {Array<{ specifier: string, line: number }>}
 */
export function importsOf(text) {
  const code = blankComments(text);
  const patterns = [
    // import x from '…', import type { A } from '…', export { a } from '…', export * from '…'
    /\b(?:import|export)\b[^'";()]*?\bfrom\s*(['"])([^'"]+)\1/g,
    // import '…' (side effects only)
    /\bimport\s*(['"])([^'"]+)\1/g,
    // import('…')
    /\bimport\s*\(\s*(['"])([^'"]+)\1\s*[,)]/g,
  ];
  const found = [];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const specifier = /** @type {string} */ (match[2]);
      const line = code.slice(0, match.index).split('\n').length;
      found.push({ specifier, line });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/**
 * Every .ts file under `dir`, as absolute paths.
 * @param {string} dir
 * @returns {string[]}
 */
function tsFilesUnder(dir) {
  /** @type {string[]} */
  const files = [];
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return files;
  }
  for (const name of names.sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...tsFilesUnder(path));
    else if (name.endsWith('.ts')) files.push(path);
  }
  return files;
}

/**
 * One relative import of a scanned file, resolved.
 * @typedef {object} ImportArrow
 * @property {string} file root-relative path of the importing file
 * @property {number} line 1-based line of the import
 * @property {string} specifier the import as written
 * @property {string} target root-relative path it resolves to
 */

/**
 * @typedef {ImportArrow & { reason: string }} LayerViolation
 */

/**
 * The scanned files under `root` (src/, workers/, demo/) and their relative imports.
 * @param {string} root repository root
 * @returns {{ files: string[], arrows: ImportArrow[] }}
 */
export function importGraph(root) {
  const absoluteRoot = resolve(root);
  const toPosix = (path) => relative(absoluteRoot, path).split(sep).join(posix.sep);
  /** @type {string[]} */
  const files = [];
  /** @type {ImportArrow[]} */
  const arrows = [];
  for (const absolute of SCANNED.flatMap((folder) => tsFilesUnder(join(absoluteRoot, folder)))) {
    const file = toPosix(absolute);
    files.push(file);
    for (const { specifier, line } of importsOf(readFileSync(absolute, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = toPosix(resolve(dirname(absolute), specifier.replace(/[?#].*$/, '')));
      arrows.push({ file, line, specifier, target });
    }
  }
  return { files, arrows };
}

/**
 * Every file in no room and every arrow of `graph` that the rooms and the fence table do not
 * allow. Takes the graph as data, so a test can draw a violation without writing files.
 * @param {{ files: readonly string[], arrows: readonly ImportArrow[] }} graph
 * @returns {LayerViolation[]}
 */
export function violationsOf(graph) {
  /** @type {LayerViolation[]} */
  const violations = [];
  const roomless = new Set();
  for (const file of graph.files) {
    if (layerOf(file) !== -1) continue;
    roomless.add(file);
    violations.push({
      file,
      line: 1,
      specifier: '',
      target: file,
      reason: 'the file is in no room (add its folder to LAYERS)',
    });
  }
  for (const arrow of graph.arrows) {
    const own = layerOf(arrow.file);
    if (roomless.has(arrow.file) || own === -1) continue;
    const top = arrow.target.split('/')[0] ?? '';
    if (OFF_LIMITS.includes(top)) {
      violations.push({ ...arrow, reason: `shipped code imports ${top}/` });
    } else if (SCANNED.includes(top)) {
      const theirs = layerOf(arrow.target);
      const reason = theirs === -1 ? 'the target is in no room (add its folder to LAYERS)' : arrowProblem(own, theirs);
      if (reason !== null) violations.push({ ...arrow, reason });
    }
  }
  return violations;
}

/**
 * Every import under `root`'s src/, workers/ and demo/ that runs up the rooms, crosses a fence
 * or leaves shipped code.
 * @param {string} root repository root
 * @returns {{ files: number, imports: number, violations: LayerViolation[] }}
 */
export function checkLayers(root) {
  const graph = importGraph(root);
  return { files: graph.files.length, imports: graph.arrows.length, violations: violationsOf(graph) };
}

/**
 * The violations of {@link checkLayers}: an empty list when every import is allowed.
 * @param {string} root repository root
 * @returns {LayerViolation[]}
 */
export function findLayerViolations(root) {
  return checkLayers(root).violations;
}

/**
 * One line per violation.
 * @param {LayerViolation} v
 * @returns {string}
 */
export function formatViolation(v) {
  return `${v.file}:${v.line}: ${v.specifier ? `'${v.specifier}' → ${v.target}: ` : ''}${v.reason}`;
}

function main() {
  const problems = tableProblems();
  if (problems.length > 0) {
    console.error(`check-layers: the table in scripts/check-layers.mjs is not sound:`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exit(1);
  }
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { files, imports, violations } = checkLayers(root);
  if (violations.length > 0) {
    console.error(`check-layers: ${violations.length} import(s) run up the rooms or cross a fence:`);
    for (const v of violations) console.error(`  ${formatViolation(v)}`);
    process.exit(1);
  }
  console.log(
    `check-layers: ${files} files, ${imports} relative imports, none runs up the ${LAYERS.length} rooms or crosses the ${FORBIDDEN.length} fences`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
