/** One fenced ```ts example of a README, as written there. */
export interface ReadmeExample {
  /** Line of the opening fence in the README (1-based). */
  readonly line: number;
  readonly code: string;
  /** Preludes the fence names (```ts prelude=a,b): code run before the example. */
  readonly prelude: readonly string[];
  /** Epilogues the fence names (```ts epilogue=a): code run after it. */
  readonly epilogue: readonly string[];
}

export interface RunOptions {
  /**
   * Import specifiers pointed at files: the package's own name (and
   * subpaths) to its sources, e.g. `{ '@strata/io': '/…/src/index.ts' }`.
   * Other bare imports resolve from the package's directory. `testReadme`'s
   * default: the package's name (its package.json) to `src/index.ts`.
   */
  readonly imports?: Readonly<Record<string, string>>;
  /**
   * Code an example asks for by name (`prelude=name`), run before it in the
   * same module: the context a README leaves to the reader (a store, a
   * server). It shares the example's scope: import under another name
   * (`import { Store as PreludeStore } ...`) when the example imports it too.
   */
  readonly preludes?: Readonly<Record<string, string>>;
  /** Code run after an example that asks (`epilogue=name`): closing what it opened. */
  readonly epilogues?: Readonly<Record<string, string>>;
}

export interface ReadmeOptions extends RunOptions {
  /** At least this many examples (a fence changed by mistake is noticed). Default 1. */
  readonly minExamples?: number;
  /** Per example. Default 30 000 ms. */
  readonly timeoutMs?: number;
}

/** Every ```ts block of the file, in order. */
export function readmeExamples(path: string): ReadmeExample[];

/** Whether the example defines tests (imports vitest): it runs while the test file is collected. */
export function definesTests(example: ReadmeExample): boolean;

/**
 * Runs an example as a module (preludes, the example, epilogues), in a
 * fresh temporary working directory; returns the console.log lines whose
 * printed value is not what their comment says (empty: right).
 */
export function runExample(
  example: ReadmeExample,
  options: RunOptions & { readonly packageDir: string },
): Promise<string[]>;

/**
 * One test per ```ts example of the README; examples that define tests run
 * at collection. Await it at the top level of a test file.
 */
export function testReadme(readme: string | URL, options: ReadmeOptions): Promise<void>;
