import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';

// Imports point down only (ARCHITECTURE.md, layers). Each layer lists what it must never import.
const FORBIDDEN: Record<string, string[]> = {
  'src/services': ['src/mcp', 'src/transports', 'src/tools'],
  'src/store': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/jobs', 'src/embed', 'src/index'],
  'src/embed': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store', 'src/jobs'],
  'src/index': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/jobs', 'src/embed/pool'],
  'src/jobs': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store'],
  'src/tools': ['src/transports', 'src/store'],
  'src/mcp': ['src/transports', 'src/store'],
  workers: ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store', 'src/jobs'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('layers import downwards only', () => {
  const root = packageRoot();
  const violations: string[] = [];
  for (const [layer, banned] of Object.entries(FORBIDDEN)) {
    for (const file of sourceFiles(join(root, layer))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
        const target = relative(root, resolve(dirname(file), m[1]!)).replace(/\.js$/, '');
        if (banned.some((b) => target === b || target.startsWith(b + '/'))) violations.push(`${relative(root, file)} imports ${target}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});
