// Layering check (issue 33): no import in src/ or workers/ runs back up the layers.
//
// Every .ts file under src/ and workers/ is read, its relative imports (static `import … from`,
// side-effect `import '…'`, `export … from` and dynamic `import('…')`) are resolved, and each
// file is mapped to its layer by LAYERS below. An import of a file in a layer above the
// importer's, of a src/ file that is in no layer, or of tools/, test/, bench/, eval/ or
// scripts/ is a violation. Within one layer anything goes. Plain Node, no dependencies.
//
//   node scripts/check-layers.mjs      exit 1 listing every violation, else 0
//
// The unit tier runs `findLayerViolations` (test/node/architecture/layers.test.ts), and so
// does `npm run check`. docs/architecture.md draws the same order.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layers, top (may import anything below) to bottom. An entry is a folder (every file
 * under it) or a single file; paths are relative to the repository root.
 */
export const LAYERS = [
  {
    name: 'entry points',
    paths: ['src/index.ts', 'src/service.ts', 'src/dom', 'src/sw', 'src/cli', 'src/vite', 'workers'],
  },
  { name: 'routes', paths: ['src/routes'] },
  { name: 'pipeline', paths: ['src/pipeline'] },
  { name: 'jobs', paths: ['src/jobs'] },
  { name: 'webhooks', paths: ['src/webhooks'] },
  { name: 'store', paths: ['src/store'] },
  { name: 'auth', paths: ['src/auth'] },
  {
    name: 'media, vision, render, models, export, client',
    paths: ['src/media', 'src/vision', 'src/render', 'src/models', 'src/export', 'src/client'],
  },
  { name: 'analysis', paths: ['src/analysis'] },
  { name: 'contract', paths: ['src/contract'] },
];

/** Folders shipped code must never import. */
export const OFF_LIMITS = ['tools', 'test', 'bench', 'eval', 'scripts'];

/** Folders whose .ts files are checked. */
const SCANNED = ['src', 'workers'];

/**
 * The layer index of a root-relative posix path (0 = top), or -1 when no layer holds it.
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
 * @typedef {object} LayerViolation
 * @property {string} file root-relative path of the importing file
 * @property {number} line 1-based line of the import
 * @property {string} specifier the import as written
 * @property {string} target root-relative path it resolves to
 * @property {string} reason why it is not allowed
 */

/**
 * Every import under `root`'s src/ and workers/ that runs up the layers or leaves shipped code.
 * @param {string} root repository root
 * @returns {{ files: number, imports: number, violations: LayerViolation[] }}
 */
export function checkLayers(root) {
  const absoluteRoot = resolve(root);
  const toPosix = (path) => relative(absoluteRoot, path).split(sep).join(posix.sep);
  /** @type {LayerViolation[]} */
  const violations = [];
  let files = 0;
  let imports = 0;
  for (const absolute of SCANNED.flatMap((folder) => tsFilesUnder(join(absoluteRoot, folder)))) {
    files++;
    const file = toPosix(absolute);
    const own = layerOf(file);
    if (own === -1) {
      violations.push({
        file,
        line: 1,
        specifier: '',
        target: file,
        reason: 'the file is in no layer (add its folder to LAYERS)',
      });
      continue;
    }
    for (const { specifier, line } of importsOf(readFileSync(absolute, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      imports++;
      const target = toPosix(resolve(dirname(absolute), specifier.replace(/[?#].*$/, '')));
      const top = target.split('/')[0] ?? '';
      const at = { file, line, specifier, target };
      if (OFF_LIMITS.includes(top)) {
        violations.push({ ...at, reason: `shipped code imports ${top}/` });
      } else if (SCANNED.includes(top)) {
        const theirs = layerOf(target);
        if (theirs === -1) violations.push({ ...at, reason: 'the target is in no layer (add its folder to LAYERS)' });
        else if (theirs < own)
          violations.push({
            ...at,
            reason: `${LAYERS[own]?.name} (layer ${own + 1}) imports ${LAYERS[theirs]?.name} (layer ${theirs + 1}), which is above it`,
          });
      }
    }
  }
  return { files, imports, violations };
}

/**
 * The violations of {@link checkLayers}: an empty list when every import runs down the layers.
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
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { files, imports, violations } = checkLayers(root);
  if (violations.length > 0) {
    console.error(`check-layers: ${violations.length} import(s) run up the layers:`);
    for (const v of violations) console.error(`  ${formatViolation(v)}`);
    process.exit(1);
  }
  console.log(`check-layers: ${files} files, ${imports} relative imports, none runs up the ${LAYERS.length} layers`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
