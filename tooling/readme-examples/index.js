// Every fenced ```ts example of a package README, extracted and run by a
// test as it is written there, so that none can rot. See README.md.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';

/** `key=value` words after the language of a fence's info string. */
function fenceOptions(words) {
  const out = {};
  for (const w of words) {
    const m = /^([a-z]+)=([\w,-]+)$/.exec(w);
    if (m === null) throw new Error(`readme-examples: unknown fence option ${JSON.stringify(w)}`);
    out[m[1]] = m[2].split(',');
  }
  return out;
}

/** Every ```ts block of the file, in order, with its fence options. */
export function readmeExamples(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```ts(?:\s+(.*))?$/.exec(lines[i]);
    if (fence === null) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && lines[i].trim() !== '```'; i++) body.push(lines[i]);
    const opts = fenceOptions((fence[1] ?? '').trim().split(/\s+/).filter(Boolean));
    out.push({
      line: start + 1,
      code: body.join('\n'),
      prelude: opts.prelude ?? [],
      epilogue: opts.epilogue ?? [],
    });
  }
  return out;
}

/** A comment that reads as printed output: a string, number, array, map, Buffer... */
const PRINTED = /^('|\[|<|Map\(|-?\d|true\b|false\b|undefined\b|null\b|\{)/;

/** The console.log lines whose comment (same line, or the next) shows the output. */
function expectations(lines) {
  const out = [];
  lines.forEach((l, i) => {
    if (!l.includes('console.log(')) return;
    const same = /\);\s*\/\/ (.*)$/.exec(l)?.[1];
    const next = /^\s*\/\/ (.*)$/.exec(lines[i + 1] ?? '')?.[1];
    const text = same ?? next;
    if (text !== undefined && PRINTED.test(text)) out.push({ line: i, text });
  });
  return out;
}

/** Whether the example defines tests (imports vitest): it runs while the test file is collected. */
export function definesTests(example) {
  return /from\s+'vitest'/.test(example.code);
}

function named(kind, names, table) {
  return names.map((n) => {
    const code = table?.[n];
    if (code === undefined) throw new Error(`readme-examples: no ${kind} named ${n}`);
    return code;
  });
}

/**
 * Runs an example as a module: its imports of `options.imports`' keys
 * pointed at their files, the named preludes before it and epilogues after
 * it (one module: they share its scope), in a fresh temporary working
 * directory (so `./data` is the example's own). Each console.log whose
 * comment shows the output is checked: what it printed (each argument
 * util.inspect-ed, joined by a space) is the comment, or the comment starts with it
 * followed by ` (`. Returns what did not match (empty: the example is right).
 */
export async function runExample(example, options) {
  const lines = example.code.split('\n');
  const printed = new Map();
  let code = lines.map((l, i) => l.replaceAll('console.log(', `__readmeLog(${i}, `)).join('\n');
  const before = named('prelude', example.prelude, options.preludes).join('\n');
  const after = named('epilogue', example.epilogue, options.epilogues).join('\n');
  code = `${before}\n${code}\n${after}\n`;
  for (const [specifier, file] of Object.entries(options.imports ?? {})) {
    code = code.replaceAll(`'${specifier}'`, JSON.stringify(file));
  }
  const header =
    'const __readmeLog = (globalThis as unknown as { __readmeLog: (line: number, ...v: unknown[]) => void }).__readmeLog;\n';
  // Beside the package's sources, so the example's bare imports resolve as the package's own do.
  const dir = join(options.packageDir, '.readme-examples');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `example-${example.line}-${process.pid}-${Date.now()}.ts`);
  await writeFile(file, header + code);
  const cwd = process.cwd();
  const work = await mkdtemp(join(tmpdir(), 'strata-readme-'));
  globalThis.__readmeLog = (line, ...values) => {
    if (!printed.has(line)) printed.set(line, values.map((v) => inspect(v)).join(' '));
  };
  try {
    process.chdir(work);
    await import(file);
  } finally {
    process.chdir(cwd);
    delete globalThis.__readmeLog;
    await rm(file, { force: true });
    // Gone once empty (another file's examples may still be running).
    await rmdir(dir).catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }
  const wrong = await checkDeclaredClasses(example, options);
  for (const e of expectations(lines)) {
    const got = printed.get(e.line);
    const at = `README line ${example.line + 1 + e.line}`;
    if (got === undefined) wrong.push(`${at}: printed nothing, the comment says ${e.text}`);
    else if (got !== e.text && !e.text.startsWith(`${got} (`)) {
      wrong.push(`${at}: printed ${got}, the comment says ${e.text}`);
    }
  }
  return wrong;
}

/**
 * A block that declares a class's API (`class Name { method(...): T; ... }`,
 * signatures without bodies) is checked against the package: `Name` is one
 * of its exports and every method it lists is there (static ones on the
 * class). The package is the first entry of `imports`.
 */
async function checkDeclaredClasses(example, options) {
  const wrong = [];
  const entry = Object.values(options.imports ?? {})[0];
  const lines = example.code.split('\n');
  let current = null;
  let exported = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const start = /^class (\w+)/.exec(l);
    if (start !== null) {
      exported ??= entry === undefined ? {} : await import(entry);
      current = exported[start[1]];
      if (typeof current !== 'function') {
        wrong.push(`README line ${example.line + 1 + i}: class ${start[1]} is not exported`);
      }
      continue;
    }
    if (/^}/.test(l)) current = null;
    if (typeof current !== 'function') continue;
    const m = /^ {2}(static )?(?:get )?(\w+)(?:<[^>]*>)?\(/.exec(l);
    if (m === null || m[2] === 'constructor') continue;
    const holder = m[1] === undefined ? current.prototype : current;
    if (!(m[2] in holder)) {
      wrong.push(`README line ${example.line + 1 + i}: ${current.name} has no method ${m[2]}`);
    }
  }
  return wrong;
}

/** The package's own name (its package.json beside the README) pointed at its sources' index. */
function ownImports(packageDir) {
  const { name } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  return { [name]: join(packageDir, 'src', 'index.ts') };
}

/**
 * Defines the tests of a README (`readme`: a path or file: URL): one per
 * ```ts example, each run by `runExample` and expected to print what its
 * comments say. Examples that define tests (they import vitest) run now,
 * while the test file is collected, and their tests join the file's:
 * await this at the top level of the test file.
 */
export async function testReadme(readme, options) {
  const path = readme instanceof URL ? fileURLToPath(readme) : readme;
  const packageDir = dirname(path);
  const run = { packageDir, ...options, imports: options.imports ?? ownImports(packageDir) };
  const examples = readmeExamples(path);
  describe(`README examples (${examples.length})`, () => {
    it(`has at least ${options.minExamples ?? 1}`, () => {
      expect(examples.length).toBeGreaterThanOrEqual(options.minExamples ?? 1);
    });
    for (const example of examples.filter((e) => !definesTests(e))) {
      it(
        `runs the example at line ${example.line}`,
        async () => {
          expect(await runExample(example, run)).toEqual([]);
        },
        options.timeoutMs ?? 30_000,
      );
    }
  });
  for (const example of examples.filter(definesTests)) {
    await runExample(example, run);
  }
}
