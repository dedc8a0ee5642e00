// Writes bot/miniapp/static/source-hash.txt: sha256 over the app's sources, so a Python test
// can prove the committed bundle was built from the committed sources (see the contract).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outFile = join(root, '..', 'bot', 'miniapp', 'static', 'source-hash.txt');

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

const files = ['index.html', 'package.json', 'package-lock.json', 'vite.config.js'].map((f) =>
  join(root, f),
);
const paths = [...files, ...walk(join(root, 'src'))].map((f) => relative(root, f).split(sep).join('/'));
// Compare as UTF-8 bytes, the order Python's sorted() gives for these names.
paths.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

const hash = createHash('sha256');
for (const path of paths) {
  hash.update(Buffer.from(path, 'utf8'));
  hash.update(Buffer.from([0]));
  hash.update(readFileSync(join(root, path)));
  hash.update(Buffer.from([0]));
}
const digest = hash.digest('hex');
writeFileSync(outFile, digest);
console.log(`source-hash.txt: ${digest} over ${paths.length} files`);
