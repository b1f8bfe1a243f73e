// Deletes compiled files in dist/ whose TypeScript source is gone (moved, renamed or deleted).
// The build compiles over the existing dist/ instead of deleting it first, so a server or test
// started from the checkout during a build never finds dist/ missing; this script removes what
// the new build did not replace, so the test glob cannot pick up a test that no longer exists.
import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Mirrors tsconfig.json: rootDir "." and outDir "dist".
const outDir = join(root, 'dist');

// Each output extension and the source extensions that compile to it.
const SOURCES = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

function sourceExists(output) {
  const compiled = output.endsWith('.map') ? output.slice(0, -'.map'.length) : output;
  const rel = relative(outDir, compiled);
  for (const [ext, sourceExts] of Object.entries(SOURCES)) {
    if (!rel.endsWith(ext)) continue;
    const stem = join(root, rel.slice(0, -ext.length));
    return sourceExts.some((s) => existsSync(stem + s));
  }
  // Not a compiled script (e.g. a JSON module tsc copied): stale when the same path is gone.
  return existsSync(join(root, rel));
}

/** Returns true when `dir` is empty afterwards. */
function prune(dir, removed) {
  let left = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (prune(path, removed)) rmdirSync(path);
      else left++;
    } else if (sourceExists(path)) {
      left++;
    } else {
      rmSync(path, { force: true });
      removed.push(relative(root, path));
    }
  }
  return left === 0;
}

if (existsSync(outDir)) {
  const removed = [];
  prune(outDir, removed);
  if (removed.length > 0) process.stdout.write(`clean-stale: removed ${removed.length} file(s) without a source: ${removed.join(', ')}\n`);
}
