import { join } from 'node:path';
import { workspaceRoot } from '../workspace-root';

/** Where spawned processes of this test run write their logs (set per run by the Jest global setup). */
export function testLogDir(): string {
  return process.env['UMS_TEST_LOG_DIR'] ?? join(workspaceRoot(), 'tmp', 'test-logs');
}
