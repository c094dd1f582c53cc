// Writes one entry of a zip archive to a file: node unpack-zip-entry.mjs <archive> <entry> <target>.
// yauzl reads asynchronously; kubectl-binary.helper.ts runs this as a child to stay synchronous.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';

const [archive, entryName, target] = process.argv.slice(2);
if (archive === undefined || entryName === undefined || target === undefined) {
  console.error('usage: unpack-zip-entry.mjs <archive> <entry> <target>');
  process.exit(2);
}

const zip = await new Promise((resolve, reject) =>
  yauzl.open(archive, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file))),
);
const entry = await new Promise((resolve, reject) => {
  zip.on('entry', (e) => (e.fileName === entryName ? resolve(e) : zip.readEntry()));
  zip.on('end', () => reject(new Error(`zip entry ${entryName} not found in ${archive}`)));
  zip.on('error', reject);
  zip.readEntry();
});
const stream = await new Promise((resolve, reject) =>
  zip.openReadStream(entry, (error, s) => (error ? reject(error) : resolve(s))),
);
await pipeline(stream, createWriteStream(target, { mode: 0o755 }));
zip.close();
