import { EventEmitter } from 'node:events';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { installProcessSafetyNet } from './process-safety-net';

describe('installProcessSafetyNet', () => {
  function setUp(): {
    target: EventEmitter;
    logged: { level: string; message: unknown }[];
    exits: number[];
    metrics: MetricsRegistry;
    remove: () => void;
  } {
    const target = new EventEmitter();
    const logged: { level: string; message: unknown }[] = [];
    const exits: number[] = [];
    const metrics = new MetricsRegistry('test');
    const remove = installProcessSafetyNet({
      target,
      metrics,
      exit: (code) => exits.push(code),
      logger: {
        warn: (_fields, message) => logged.push({ level: 'warn', message }),
        error: (_fields, message) => logged.push({ level: 'error', message }),
        fatal: (_fields, message) => logged.push({ level: 'fatal', message }),
      },
    });
    return { target, logged, exits, metrics, remove };
  }

  const refused = (): Error =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED', fatal: true });

  it('logs and counts rejections and lost connections, and never exits for them', async () => {
    const { target, logged, exits, metrics } = setUp();
    target.emit('unhandledRejection', refused());
    target.emit('unhandledRejection', new Error('a bug'));
    target.emit('uncaughtException', refused());
    expect(exits).toEqual([]);
    expect(logged.map((l) => l.level)).toEqual(['warn', 'error', 'warn']);
    const text = await metrics.metrics();
    expect(text).toContain(
      'ums_process_unhandled_errors_total{kind="rejection",dependency="mysql",service="test"} 1',
    );
    expect(text).toContain(
      'ums_process_unhandled_errors_total{kind="rejection",dependency="none",service="test"} 1',
    );
    expect(text).toContain(
      'ums_process_unhandled_errors_total{kind="exception",dependency="mysql",service="test"} 1',
    );
  });

  it('exits 1 on an uncaught exception that is not an infrastructure failure', () => {
    const { target, logged, exits, remove } = setUp();
    target.emit('uncaughtException', new TypeError('x is undefined'));
    expect(exits).toEqual([1]);
    expect(logged.map((l) => l.level)).toEqual(['fatal']);
    remove();
    expect(target.listenerCount('uncaughtException')).toBe(0);
    expect(target.listenerCount('unhandledRejection')).toBe(0);
  });
});
