import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';

/**
 * A CommonJS program uses the built package with `require()` (Node >= 20.19
 * loads the ESM through the exports map's `default`): it opens a database,
 * writes and reads string keys, and closes it.
 */
const packagesDir = fileURLToPath(new URL('../../', import.meta.url));
let app: string;

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'strata-store-cjs-'));
  const scope = join(app, 'node_modules', '@strata');
  await mkdir(scope, { recursive: true });
  for (const dir of await readdir(packagesDir)) {
    const manifest = JSON.parse(await readFile(join(packagesDir, dir, 'package.json'), 'utf8'));
    await symlink(join(packagesDir, dir), join(scope, manifest.name.split('/')[1]));
  }
  await writeFile(join(app, 'package.json'), '{ "name": "cjs-user", "type": "commonjs" }\n');
  await writeFile(
    join(app, 'main.js'),
    `const { open } = require('@strata/store');
(async () => {
  const db = await open(require('node:path').join(__dirname, 'data'));
  await db.set('abcd', 'first');
  await db.set('wxyz', 'second');
  console.log(await db.get('abcd'), await db.get('wxyz'));
  await db.close();
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
});
afterAll(async () => {
  await rm(app, { recursive: true, force: true });
});

test('require() of @strata/store from a CommonJS project, and a database through it', () => {
  const r = spawnSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.stdout.trim()).toBe('first second');
  expect(r.status).toBe(0);
});
