import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@ums/testing';
import { ConsoleLoad, newestRun } from './console-load';

describe('newestRun', () => {
  it('names the first campaign of a frame that has a run', () => {
    const frame = {
      at: '2026-01-01T00:00:00Z',
      campaigns: [
        { id: 'cmp_new', latestRun: null },
        { id: 'cmp_old', latestRun: { id: 'run_1', state: 'RUNNING', counters: {} } },
      ],
    };
    expect(newestRun(JSON.stringify(frame))).toEqual({ campaignId: 'cmp_old', runId: 'run_1' });
    expect(
      newestRun(JSON.stringify({ at: 'x', campaigns: [{ id: 'cmp_new', latestRun: null }] })),
    ).toBeUndefined();
    expect(newestRun('{}')).toBeUndefined();
  });
});

/** The console server's routes as the load uses them: two event streams and the run page's calls. */
function fakeConsole(key: string): { server: Server; seen: string[] } {
  const seen: string[] = [];
  // Keep-alive for a minute, as a proxy would: a client that leaves its connections open holds close().
  const server = createServer({ keepAliveTimeout: 60_000 }, (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.headers.authorization === `Bearer ${key}` ? 'keyed' : 'unkeyed'} ${req.url ?? ''}`);
    if (req.url === '/api/scheduler/v1/live/campaigns') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frame = { at: 'now', campaigns: [{ id: 'cmp_1', latestRun: { id: 'run_1' } }] };
      const timer = setInterval(
        () => res.write(`: keep-alive\n\nevent: campaigns\ndata: ${JSON.stringify(frame)}\n\n`),
        20,
      );
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (req.url === '/api/scheduler/v1/live/campaigns/cmp_1/runs/run_1') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: history\ndata: {"samples":[]}\n\n');
      const timer = setInterval(() => res.write('event: sample\ndata: {}\n\n'), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { server, seen };
}

describe('ConsoleLoad', () => {
  it('keeps each console on both streams and the run page calls, with the key, and closes them all', async () => {
    const { server, seen } = fakeConsole('umsk_test');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const consoleUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const load = ConsoleLoad.start({ consoleUrl, apiKey: 'umsk_test', consoles: 3 });
      await waitUntil('every console polling the run page', () =>
        seen.filter((line) => line.endsWith('/messages?limit=50')).length >= 3 ? true : undefined,
      );
      const figures = await load.stop();
      expect(figures.consoles).toBe(3);
      expect(figures.runHistories).toBe(3);
      expect(figures.campaignFrames).toBeGreaterThanOrEqual(3);
      expect(figures.pageCallsFailed).toBe(0);
      expect(figures.streamErrors).toBe(0);
      expect(seen.every((line) => line.startsWith('keyed '))).toBe(true);
      // No connection of the consoles is left to hold the server's close.
      await new Promise<void>((resolve) => server.close(() => resolve()));
    } finally {
      server.closeAllConnections();
      if (server.listening) server.close();
    }
  });
});
