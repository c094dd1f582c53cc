import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { TcpProxy } from './tcp-proxy';

/** Writes a line and answers what comes back, or the error that ended the connection. */
async function roundTrip(port: number, line: string): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  return new Promise((resolve) => {
    let answer = '';
    socket.once('connect', () => socket.write(line));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      socket.end();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
    socket.once('close', () => resolve(answer));
  });
}

describe('TcpProxy', () => {
  let echo: Server;
  let proxy: TcpProxy;

  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const address = echo.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    proxy = await TcpProxy.start({ targetHost: '127.0.0.1', targetPort: address.port });
  });

  afterAll(async () => {
    await proxy.stop();
    echo.close();
  });

  it('passes bytes both ways until cut, drops open connections and refuses new ones, then passes again', async () => {
    expect(await roundTrip(proxy.port, 'before')).toBe('before');

    const open: Socket = connect({ host: '127.0.0.1', port: proxy.port });
    await once(open, 'connect');
    const closed = once(open, 'close');
    proxy.cut();
    await closed;
    expect(proxy.isCut).toBe(true);
    expect(await roundTrip(proxy.port, 'while cut')).toMatch(/^(error ECONNRESET|)$/);
    expect(proxy.refused).toBe(1);

    proxy.restore();
    expect(await roundTrip(proxy.port, 'after')).toBe('after');
  });
});
