import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';

/** One fenced ```ts example of a README, as written there. */
export interface ReadmeExample {
  /** Line of the opening fence in the README (1-based). */
  readonly line: number;
  readonly code: string;
}

/** What one `console.log(...)` of an example says it prints, by its comment. */
interface Expectation {
  readonly line: number;
  readonly text: string;
}

/** Every ```ts block of the file, in order. */
export function readmeExamples(path: string): ReadmeExample[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: ReadmeExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!);
    out.push({ line: start + 1, code: body.join('\n') });
  }
  return out;
}

/** A comment that reads as printed output: a string, number, array, map, Buffer... */
const PRINTED = /^('|\[|<|Map\(|-?\d|true\b|false\b|undefined\b|null\b|\{)/;

function expectations(lines: readonly string[]): Expectation[] {
  const out: Expectation[] = [];
  lines.forEach((l, i) => {
    if (!l.includes('console.log(')) return;
    const same = /\);\s*\/\/ (.*)$/.exec(l)?.[1];
    const next = /^\s*\/\/ (.*)$/.exec(lines[i + 1] ?? '')?.[1];
    const text = same ?? next;
    if (text !== undefined && PRINTED.test(text)) out.push({ line: i, text });
  });
  return out;
}

type Log = (line: number, value: unknown) => void;

/**
 * Runs an example as a module (its imports of `pkg` pointed at `entry`,
 * the package's source) and checks each `console.log` whose comment shows
 * the output: what it printed (util.inspect, as console.log prints) is the
 * comment, or the comment starts with it followed by ` (`. Returns what
 * did not match (empty: the example is right).
 */
export async function runExample(
  example: ReadmeExample,
  pkg: string,
  entry: string,
): Promise<string[]> {
  const lines = example.code.split('\n');
  const printed = new Map<number, string>();
  const log: Log = (line, value) => {
    if (!printed.has(line)) printed.set(line, inspect(value));
  };
  const code = lines
    .map((l, i) => l.replaceAll('console.log(', `__log(${i}, `))
    .join('\n')
    .replaceAll(`'${pkg}'`, JSON.stringify(entry));
  const header =
    'const __log = (globalThis as unknown as { __readmeLog: (line: number, v: unknown) => void }).__readmeLog;\n';
  const dir = await mkdtemp(join(tmpdir(), 'strata-readme-'));
  const file = join(dir, `example-${example.line}.ts`);
  await writeFile(file, header + code);
  const g = globalThis as unknown as { __readmeLog?: Log };
  g.__readmeLog = log;
  try {
    await import(file);
  } finally {
    delete g.__readmeLog;
    await rm(dir, { recursive: true, force: true });
  }
  const wrong: string[] = [];
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
