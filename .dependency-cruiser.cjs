// Import-graph rules for the Strata workspace, run by `pnpm lint` (script
// `lint:imports`). dependency-cruiser reads every .ts/.js/.mjs file under
// packages/, apps/ and tooling/, resolves each import the way TypeScript and
// Node do here, and fails on any import that breaks a rule below. Each error
// line names the rule and the import (`from -> to`).
//
// Workspace packages import each other by name (`@strata/hlog`). That name
// resolves through node_modules symlinks and the `@strata/source` export
// condition to the real file (packages/hlog/src/index.ts), so the rules match
// plain repository paths.
//
// Test files are `*.test.ts` and anything under a `test/` folder.

const fs = require('node:fs');
const path = require('node:path');

// The layering, lowest first: a package (or app) may import only the packages
// listed for it, plus its own files. Keep this in step with the package.json
// dependencies; a new workspace package gets a line here or the
// `layer-unknown-package` rule fails on it.
const layers = {
  'packages/io': [],
  'packages/protocol': ['io'],
  'packages/pagebuf': ['io'],
  'packages/rdb': ['io'],
  'packages/aof': ['io', 'protocol'],
  'packages/hlog': ['io', 'pagebuf'],
  'packages/scan': ['hlog', 'pagebuf', 'io'],
  'packages/collections': ['hlog', 'io'],
  'packages/resp': ['collections', 'hlog', 'scan', 'protocol', 'rdb', 'io'],
  'packages/store': ['resp', 'aof', 'hlog', 'protocol', 'io'],
  'apps/server': ['store', 'aof', 'hlog', 'io', 'resp', 'protocol'],
  'apps/bench': [
    'aof',
    'collections',
    'hlog',
    'io',
    'pagebuf',
    'protocol',
    'resp',
    'scan',
    'store',
  ],
};

const TEST = ['\\.test\\.ts$', '(^|/)test/'];
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The files another package may import: the `@strata/source` targets of each
// package's `exports` (src/index.ts, and io's src/testing/index.ts), read from
// the package.json files so a new export needs no change here.
function publicEntries() {
  const entries = [];
  for (const dir of ['packages', 'apps']) {
    for (const name of fs.readdirSync(path.join(__dirname, dir))) {
      const manifest = path.join(__dirname, dir, name, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      const { exports: exp } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      for (const target of Object.values(exp ?? {})) {
        const src = typeof target === 'object' && target?.['@strata/source'];
        if (src) entries.push(`^${esc(path.posix.join(dir, name, src))}$`);
      }
    }
  }
  return entries;
}

const layerRules = Object.entries(layers).map(([from, allowed]) => ({
  name: `layer-${path.basename(from)}`,
  comment:
    `${from} may import only ${allowed.length ? allowed.map((p) => `@strata/${p}`).join(', ') : 'no other workspace package'}. ` +
    'Packages are layered (io; protocol, pagebuf; aof, hlog; scan, collections; resp; apps) ' +
    'and import only downwards, so a package builds, tests and publishes without the ones ' +
    'above it. Type-only imports count (they end up in the .d.ts). Tests are exempt.',
  severity: 'error',
  from: { path: `^${esc(from)}/`, pathNot: TEST },
  to: {
    path: '^packages/[^/]+/',
    pathNot: [`^${esc(from)}/`, ...allowed.map((p) => `^packages/${esc(p)}/`)],
  },
}));

module.exports = {
  forbidden: [
    {
      // Rule 1. Counts cycles of run-time imports only; `import type` and
      // `export type` links are left out. verbatimModuleSyntax (base
      // tsconfig) guarantees those are erased, so they cannot make load order
      // matter, and two modules typing each other (Client <-> ServerState) is
      // the ordinary way to type objects that hold each other. Today's tree has
      // such type-only cycles in io, hlog and resp (when this was written) and
      // no run-time one.
      // Caveats: `import { type A } from './a'` (every name inline-typed) is
      // kept by TypeScript as `import {} from './a'`, a run-time edge, but
      // counts as type-only here: write `import type`. And dependency-cruiser
      // records one cycle per import, the first it finds; a run-time cycle is
      // reported unless every one of its imports first finds a path with a
      // type-only link in it.
      name: 'no-cycle',
      comment:
        'Cycle of run-time imports. ESM runs a cycle in an order that depends on which ' +
        'module was imported first, so a class or const read before its module ran is a ' +
        'TDZ error; move what both sides need into a module that imports neither, or make ' +
        'one side `import type`.',
      severity: 'error',
      from: { path: '^(packages|apps|tooling)/' },
      to: {
        circular: true,
        dependencyTypesNot: ['type-only'],
        viaOnly: { dependencyTypesNot: ['type-only'] },
      },
    },

    // Rule 2: one rule per package, from the `layers` table above.
    ...layerRules,
    {
      name: 'layer-unknown-package',
      comment:
        'Every workspace package and app needs a line in the `layers` table of ' +
        '.dependency-cruiser.cjs, so that its imports are checked against the layering.',
      severity: 'error',
      from: {
        path: '^(packages|apps)/[^/]+/',
        pathNot: [...Object.keys(layers).map((p) => `^${esc(p)}/`), ...TEST],
      },
      to: { path: '^packages/[^/]+/' },
    },
    {
      name: 'no-package-imports-app',
      comment:
        'Nothing in packages/ may import from apps/: the apps sit on top of every package ' +
        '(and are private, so a published package could not even install them). Tests are ' +
        "exempt here, but no-relative-cross-package-import still forbids reaching into an app's " +
        'src/ by relative path.',
      severity: 'error',
      from: { path: '^packages/', pathNot: TEST },
      to: { path: '^apps/' },
    },

    // Rule 3 (two rules). Tests are not exempt: they import other packages by
    // name too. Another package's files are reached only through its name and
    // its `exports` (`@strata/hlog`, `@strata/io/testing`), so that the
    // boundary holds, the import works the same when the package comes from
    // npm, and private modules stay private.
    {
      name: 'no-relative-cross-package-import',
      comment:
        "Relative import of another package's src/ or dist/ (`../../hlog/src/x.js`). Import " +
        'it by name (`@strata/hlog`), and have that package export what you need.',
      severity: 'error',
      from: { path: '^((packages|apps|tooling)/[^/]+)/' },
      to: {
        path: '^(packages|apps)/[^/]+/(src|dist)/',
        pathNot: '^$1/',
        // A relative specifier; a package name resolved through the symlink
        // is `undetermined`, never `local`.
        dependencyTypes: ['local'],
      },
    },
    {
      name: 'no-deep-import',
      comment:
        "Deep import of another package's src/ or dist/ by name (`@strata/hlog/src/x.js`), " +
        'past its `exports`. Import the package name (`@strata/hlog`) or one of its exported ' +
        'subpaths, and have that package export what you need.',
      severity: 'error',
      from: { path: '^((packages|apps|tooling)/[^/]+)/' },
      to: {
        // `exports` makes such a name unresolvable, so it stays as written;
        // the first pattern catches one that resolves anyway.
        path: ['^(packages|apps)/[^/]+/(src|dist)/', '^@strata/[^/]+/(src|dist)(/|$)'],
        pathNot: ['^$1/', ...publicEntries()],
        dependencyTypesNot: ['local'],
      },
    },

    {
      // Rule 4. Vacuous until packages/resp/src/server/ exists.
      name: 'resp-server-via-command-hooks',
      comment:
        'The dispatcher (packages/resp/src/server/) sees commands only through ' +
        'commands/index.ts (the table and hooks) and commands/family.ts (the definition ' +
        'types), so command families can be added and changed without touching it and it ' +
        'never depends on one family. Tests are exempt.',
      severity: 'error',
      from: { path: '^packages/resp/src/server/', pathNot: TEST },
      to: {
        path: '^packages/resp/src/commands/',
        pathNot: '^packages/resp/src/commands/(index|family)\\.ts$',
      },
    },

    {
      // Rule 5 (second half; the first half is the `pathNot: TEST` above).
      name: 'no-test-import-in-production',
      comment:
        'Production code (src/ files that are not *.test.ts) must not import from a test/ ' +
        'folder: test code is not built or published, so the import breaks the package.',
      severity: 'error',
      from: { path: '^(packages|apps)/[^/]+/src/', pathNot: '\\.test\\.ts$' },
      to: { path: '(^|/)test/' },
    },

    {
      name: 'not-to-unresolvable',
      comment:
        'An import that resolves to no file on disk: a typo, a file that moved, a ' +
        'workspace package missing from package.json, or a deep path outside `exports`.',
      severity: 'error',
      from: { path: '^(packages|apps|tooling)/' },
      to: { couldNotResolve: true },
    },
  ],

  options: {
    // dist/ and node_modules/ are build output and installed code: not read,
    // but an import that lands in them is still in the graph, so rules can
    // flag it. .turbo/ and coverage/ hold nothing to check.
    doNotFollow: { path: '(^|/)(node_modules|dist)/' },
    exclude: { path: '(^|/)(\\.turbo|coverage|bench-results)/' },

    // Parse .ts with the TypeScript compiler and keep type-only imports
    // (`import type`, `export type ... from`) in the graph.
    tsPreCompilationDeps: true,
    // No `tsConfig`: the workspace's tsconfigs have no `paths` or `baseUrl`,
    // only moduleResolution Bundler and customConditions ['@strata/source'],
    // which the resolver options below reproduce (and `./x.js` -> `./x.ts` is
    // built in).

    // Follow the symlinks in node_modules to the real file, so
    // `@strata/hlog` lands in packages/hlog/src/index.ts and rules can match
    // on the path. Resolve package names through their `exports` with the
    // workspace's own condition first; `import`/`types` (dist) only if a
    // package has no source entry.
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@strata/source', 'import', 'types'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    // The rules only use paths: skip the analyses nothing here asks for.
    skipAnalysisNotInRules: true,
  },
};
