import { inspect } from 'node:util';
import pino from 'pino';
import { RedactedSecret } from './redacted-secret';

describe('RedactedSecret', () => {
  const secret = new RedactedSecret('s3cret-token');
  const holder = { id: 'cred_1', secret, nested: { secret } };

  it('reveals the value only when asked', () => {
    expect(secret.reveal()).toBe('s3cret-token');
  });

  it('never shows the value through JSON, strings, inspect or a pino log line', () => {
    const lines: string[] = [];
    const logger = pino({}, { write: (line: string) => lines.push(line) });
    logger.info({ credential: holder }, 'loaded');
    const renderings = [
      JSON.stringify(holder),
      String(secret),
      `${secret}`,
      inspect(holder, { depth: 5 }),
      lines.join(''),
    ];
    for (const text of renderings) {
      expect(text).not.toContain('s3cret-token');
      expect(text).toContain('redacted');
    }
    expect(Object.keys(secret)).toEqual([]);
  });
});
