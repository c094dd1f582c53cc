import { type ServiceProcess, startServiceProcess } from '@ums/testing';
import { Pool } from 'undici';
import { call } from '../test/simulator-http';

jest.setTimeout(120_000);

type Body = Record<string, unknown>;

/** Capacity limiting of the real simulator process: a sliding 1-second window per credential. */
describe('capacity (simulator process)', () => {
  let sim: ServiceProcess;

  beforeAll(async () => {
    sim = await startServiceProcess({ app: 'provider-simulator', env: {} });
  });

  afterAll(async () => {
    await sim?.process.stop();
  });

  it('never accepts more than capacityTps in any 1-second window of a 3-second burst', async () => {
    await call(`${sim.url}/_sim/credentials/cap-wa`, {
      method: 'PUT',
      body: {
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '2001' },
        capacityTps: 50,
        callbacks: { enabled: false },
      },
    });
    const pool = new Pool(sim.url, { connections: 16 });
    const statuses = new Map<number, number>();
    const throttleCodes = new Set<unknown>();
    let next = 0;
    // Load generation only: the assertions below do not depend on how fast this runs.
    const until = Date.now() + 3000;
    const worker = async (): Promise<void> => {
      while (Date.now() < until) {
        const id = next++;
        const response = await pool.request({
          method: 'POST',
          path: '/v21.0/2001/messages',
          headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
          body: JSON.stringify({
            messaging_product: 'whatsapp',
            to: `4915100${id}`,
            type: 'text',
            text: { body: 'x' },
            biz_opaque_callback_data: `cap-${id}`,
          }),
        });
        const body = (await response.body.json()) as { error?: { code?: number } };
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        if (response.statusCode !== 200) throttleCodes.add(body.error?.code);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await pool.close();
    const stats = (await call(`${sim.url}/_sim/stats?credentialId=cap-wa`)).body as Body & {
      perSecond: { accepted: number }[];
    };
    expect(stats['maxPerSecond']).toBeLessThanOrEqual(50);
    // The first 50 requests always find room; anything beyond 50 within a second is refused.
    expect(stats['accepted']).toBeGreaterThanOrEqual(50);
    expect(stats['accepted']).toBe(statuses.get(200));
    expect(stats['throttled']).toBe(statuses.get(400));
    expect(stats['throttled']).toBeGreaterThan(0);
    expect([...throttleCodes]).toEqual([130429]);
    for (const second of stats.perSecond) expect(second.accepted).toBeLessThanOrEqual(50);
    expect(stats['duplicates']).toBe(0);
  });

  it('follows a capacity change at run time (PATCH)', async () => {
    const url = `${sim.url}/_sim/credentials/cap-native`;
    await call(url, {
      method: 'PUT',
      body: { provider: 'simulator', capacityTps: 20, callbacks: { enabled: false } },
    });
    const bulk = (prefix: string): Promise<number> =>
      call<{ results: { status: string }[] }>(`${sim.url}/sim/v1/messages`, {
        body: {
          credentialId: 'cap-native',
          messages: Array.from({ length: 60 }, (_, i) => ({
            messageId: `${prefix}${i}`,
            to: `+49${i}`,
            channel: 'sms',
          })),
        },
      }).then((a) => a.body.results.filter((r) => r.status === 'accepted').length);
    // One request of 60 takes its grant atomically: exactly the capacity, whatever the timing.
    expect(await bulk('before-')).toBe(20);
    const doubled = await call(url, { method: 'PATCH', body: { capacityTps: 40 } });
    expect(doubled.body).toMatchObject({ capacityTps: 40 });
    // Start a fresh window so the 20 just granted do not count against the new capacity.
    expect((await call(`${sim.url}/_sim/reset?credentialId=cap-native`, { method: 'POST' })).status).toBe(
      204,
    );
    expect(await bulk('after-')).toBe(40);
    const stats = (await call(`${sim.url}/_sim/stats?credentialId=cap-native`)).body;
    expect(stats).toMatchObject({ accepted: 40, throttled: 20, maxPerSecond: 40 });
  });
});
