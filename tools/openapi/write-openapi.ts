import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { clientTypesFileOf, renderClientTypes } from './client-types.renderer';
import { OPENAPI_SERVICES, openApiFileText, renderOpenApiDocument } from './openapi.renderer';

async function main(): Promise<void> {
  const dir = join(workspaceRoot(), 'docs', 'openapi');
  mkdirSync(dir, { recursive: true });
  for (const service of OPENAPI_SERVICES) {
    const document = await renderOpenApiDocument(service);
    writeFileSync(join(dir, `${service}.json`), openApiFileText(document));
    process.stdout.write(`docs/openapi/${service}.json written\n`);
    // The typed client's types, from the document just written.
    const types = clientTypesFileOf(service);
    mkdirSync(join(workspaceRoot(), dirname(types)), { recursive: true });
    writeFileSync(join(workspaceRoot(), types), await renderClientTypes(workspaceRoot(), service));
    process.stdout.write(`${types} written\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `write-openapi failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
