import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';

// Imports point down only (ARCHITECTURE.md, layers). Each layer lists what it must never import.
const FORBIDDEN: Record<string, string[]> = {
  // Tools are transport-neutral and see services only: no infrastructure, no transport.
  'src/tools': ['src/app', 'src/mcp', 'src/transports', 'src/store', 'src/jobs', 'src/index', 'src/embed'],
  // Services get their dependencies in constructors; the composition root builds them.
  'src/services': ['src/app', 'src/mcp', 'src/transports', 'src/tools'],
  'src/store': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/jobs', 'src/embed', 'src/index', 'src/app'],
  'src/embed': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store', 'src/jobs', 'src/app'],
  'src/index': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/jobs', 'src/embed/pool', 'src/app'],
  'src/jobs': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store', 'src/app'],
  // Adapters reach the data through services, never SQL.
  'src/mcp': ['src/transports', 'src/store'],
  'src/transports': ['src/store'],
  // The UTL arithmetic is pure: workers run it, services call it, it reaches for neither.
  'src/utl': ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store', 'src/jobs', 'src/index', 'src/embed/pool', 'src/app'],
  workers: ['src/services', 'src/mcp', 'src/transports', 'src/tools', 'src/store', 'src/jobs', 'src/app'],
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
