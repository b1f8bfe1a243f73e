import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json. Code runs from dist/ after the build, so fixed relative
 * paths would differ between src and dist: walk up instead.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

/** Absolute path of a compiled Piscina entry point in workers/ (e.g. `workerFile('embed')`). */
export function workerFile(name: string): string {
  // dist/src/paths.js -> dist/workers/<name>.js
  return fileURLToPath(new URL(`../workers/${name}.js`, import.meta.url));
}
