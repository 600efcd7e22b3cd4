import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tempDir } from './strata-process.js';

/**
 * Every published package loads with `require()` from a CommonJS project
 * (Node >= 20.19 requires ESM through the exports map's `default`), as well
 * as with `import`: a user's `require('@strata/hlog')` no longer fails with
 * ERR_PACKAGE_PATH_NOT_EXPORTED. Runs against the built `dist/`.
 */
const packagesDir = fileURLToPath(new URL('../../../packages/', import.meta.url));

let tmp: Awaited<ReturnType<typeof tempDir>>;
let names: string[] = [];
beforeAll(async () => {
  tmp = await tempDir('strata-cjs-');
  const scope = join(tmp.path, 'node_modules', '@strata');
  await mkdir(scope, { recursive: true });
  for (const dir of await readdir(packagesDir)) {
    const manifest = JSON.parse(await readFile(join(packagesDir, dir, 'package.json'), 'utf8'));
    if (manifest.private === true) continue;
    names.push(manifest.name);
    await symlink(join(packagesDir, dir), join(scope, manifest.name.split('/')[1]));
  }
  names = names.sort();
  await writeFile(join(tmp.path, 'package.json'), '{ "name": "cjs-user", "type": "commonjs" }\n');
});
afterAll(async () => {
  await tmp.remove();
});

test('require() of every published package from a CommonJS project', () => {
  expect(names).toContain('@strata/hlog');
  const script = `
    const names = ${JSON.stringify(names)};
    for (const n of names) {
      const m = require(n);
      if (Object.keys(m).length === 0) throw new Error(n + ' exports nothing');
    }
    console.log(typeof require('@strata/hlog').Store);
  `;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: tmp.path, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.stdout.trim()).toBe('function');
  expect(r.status).toBe(0);
});
