import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const broker = globalThis.__UMS_TEST_BROKER__;
  if (broker === undefined) return;
  await broker.stop();
  rmSync(broker.dataDir, { recursive: true, force: true });
}
