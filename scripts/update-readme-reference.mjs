// Regenerates the README's reference block from the running code (`context-graph docs`), so the
// tool, resource and error tables never drift from the zod schemas and the error registry.
// Run after `npm run build`: node scripts/update-readme-reference.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const BEGIN = '<!-- reference:begin';
const END = '<!-- reference:end -->';
const readme = readFileSync('README.md', 'utf8');
const start = readme.indexOf(BEGIN);
const end = readme.indexOf(END);
if (start < 0 || end < start) throw new Error('README.md has no reference block');
// `docs` prints the block with its own begin and end markers.
const docs = execFileSync(process.execPath, ['dist/src/cli.js', 'docs'], { encoding: 'utf8' });
writeFileSync('README.md', readme.slice(0, start) + docs.trim() + readme.slice(end + END.length));
