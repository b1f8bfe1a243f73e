import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';

// A file past this many lines usually holds more than one idea; split it before it grows further.
const BUDGET = 350;
const CHECKED_DIRS = ['src', 'workers'];

interface Exception {
  /** Its size when it was let in: the file may shrink, never grow past this. */
  maxLines: number;
  why: string;
}

// Files over budget today, each with the split that brings it back. Remove an entry once its
// file is split (the test says when).
const OVER_BUDGET: Record<string, Exception> = {};

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

test(`source files stay within ${BUDGET} lines unless allow-listed`, () => {
  const root = packageRoot();
  const problems: string[] = [];
  for (const dir of CHECKED_DIRS) {
    for (const file of tsFiles(join(root, dir))) {
      const path = relative(root, file).split('\\').join('/');
      const lines = lineCount(readFileSync(file, 'utf8'));
      const exception = OVER_BUDGET[path];
      if (!exception) {
        if (lines > BUDGET) problems.push(`${path}: ${lines} lines, budget ${BUDGET}; split it (or allow-list it with a reason)`);
      } else if (lines > exception.maxLines) {
        problems.push(`${path}: ${lines} lines, allow-listed at ${exception.maxLines}; split it instead of growing it`);
      } else if (lines <= BUDGET) {
        problems.push(`${path}: ${lines} lines, back within budget; remove it from OVER_BUDGET`);
      }
    }
  }
  for (const path of Object.keys(OVER_BUDGET)) {
    if (!existsSync(join(root, path))) problems.push(`${path}: allow-listed but gone; remove it from OVER_BUDGET`);
  }
  assert.deepEqual(problems, []);
});
