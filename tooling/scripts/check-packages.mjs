#!/usr/bin/env node
// Package-shape check: publint on every publishable package, then pack each
// one and import it from a scratch directory, the way a user would, checking
// that every `exports` entry resolves and ships its types.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const pkgDirs = readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d));
const scratch = mkdtempSync(join(tmpdir(), 'strata-pack-'));
const failures = [];
const tarballs = [];
const manifests = [];

for (const dir of pkgDirs) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (pkg.private) continue;
  manifests.push(pkg);
  try {
    execFileSync('npx', ['publint', '--strict', dir], { stdio: 'pipe', cwd: root });
  } catch (e) {
    failures.push(`${pkg.name}: publint\n${e.stdout}${e.stderr}`);
  }
  const out = execFileSync('pnpm', ['pack', '--pack-destination', scratch], {
    cwd: dir,
    encoding: 'utf8',
  });
  tarballs.push(out.trim().split('\n').pop());
}

const app = join(scratch, 'app');
mkdirSync(app);
writeFileSync(
  join(app, 'package.json'),
  JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
);
execFileSync('npm', ['install', '--no-audit', '--no-fund', '--omit=peer', ...tarballs], {
  cwd: app,
  stdio: 'pipe',
});

for (const pkg of manifests) {
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    const spec = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
    const types = join(app, 'node_modules', pkg.name, target.types);
    if (!existsSync(types))
      failures.push(`${spec}: types file ${target.types} is not in the package`);
    const script = `import(${JSON.stringify(spec)}).then((m) => console.log(Object.keys(m).length))`;
    try {
      const n = execFileSync('node', ['--input-type=module', '-e', script], {
        cwd: app,
        encoding: 'utf8',
        stdio: 'pipe',
      });
      console.log(`ok  ${spec} (${n.trim()} exports)`);
    } catch (e) {
      failures.push(`${spec}: import failed\n${e.stderr}`);
    }
  }
}

rmSync(scratch, { recursive: true, force: true });

// Changesets: one naming an ignored package (an app) beside a published one
// stops `changeset version` ("Mixed changesets ... are not allowed").
const changesetConfig = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8'));
const ignored = new Set(changesetConfig.ignore ?? []);
for (const file of readdirSync(join(root, '.changeset'))) {
  if (!file.endsWith('.md') || file === 'README.md') continue;
  const text = readFileSync(join(root, '.changeset', file), 'utf8');
  const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
  const names = [...front.matchAll(/^["']([^"']+)["']\s*:/gm)].map((m) => m[1]);
  const some = names.filter((n) => ignored.has(n));
  if (some.length > 0 && some.length < names.length) {
    failures.push(
      `.changeset/${file}: names the ignored ${some.join(', ')} beside published packages`,
    );
  }
}

if (failures.length > 0) {
  console.error(failures.join('\n\n'));
  process.exit(1);
}
console.log(`package shape ok: ${manifests.length} packages; changesets ok`);
