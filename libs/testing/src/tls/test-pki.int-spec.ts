import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, connect, type TLSSocket } from 'node:tls';
import { createTestPki } from './test-pki';

describe('createTestPki', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-pki-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a server certificate its CA verifies and an unrelated CA refuses', async () => {
    const pki = createTestPki({ dir });
    const server = createServer(
      { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestCert: true },
      (socket) => socket.end(String((socket as TLSSocket).getPeerCertificate().subject?.CN ?? 'none')),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const talk = (ca: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca, cert: pki.client.cert, key: pki.client.key });
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    try {
      await expect(talk(pki.ca.cert)).resolves.toBe('client');
      await expect(talk(pki.otherCa.cert)).rejects.toThrow(/self.signed|unable to verify|certificate/i);
    } finally {
      server.close();
    }
  });
});
