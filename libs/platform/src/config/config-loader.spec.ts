import {
  DEFAULT_MANAGEMENT_PORT,
  HttpConfig,
  KafkaConfig,
  managementHost,
  MysqlConfig,
  RedisConfig,
  RuntimeConfig,
} from './common.config';
import { ConfigValidationError, loadConfig, loadConfigs } from './config-loader';

describe('loadConfigs', () => {
  it('converts and defaults values', () => {
    const configs = loadConfigs([HttpConfig, KafkaConfig, MysqlConfig], {
      HTTP_PORT: '3002',
      KAFKA_BROKERS: 'a:9092, b:9093',
      MYSQL_USER: 'ums_sender',
      MYSQL_POOL_SIZE: '20',
    });
    const kafka = configs.get(KafkaConfig) as KafkaConfig;
    const http = configs.get(HttpConfig) as HttpConfig;
    const mysql = configs.get(MysqlConfig) as MysqlConfig;
    expect(kafka.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
    expect(http).toMatchObject({ HTTP_PORT: 3002, HTTP_HOST: '0.0.0.0', SHUTDOWN_TIMEOUT_MS: 15_000 });
    expect(mysql).toMatchObject({ MYSQL_HOST: '127.0.0.1', MYSQL_PORT: 3306, MYSQL_POOL_SIZE: 20 });
    expect(Object.isFrozen(mysql)).toBe(true);
  });

  it('reports every bad variable at once, by name', () => {
    let error: unknown;
    try {
      loadConfigs([HttpConfig, KafkaConfig, MysqlConfig, RedisConfig], {
        HTTP_PORT: 'eighty',
        KAFKA_BROKERS: 'kafka',
        MYSQL_DATABASE: 'ums;drop',
        REDIS_URL: 'http://x',
      });
    } catch (e: unknown) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const issues = (error as ConfigValidationError).issues.map((i) => i.field);
    expect(issues).toEqual(
      expect.arrayContaining(['HTTP_PORT', 'KAFKA_BROKERS', 'MYSQL_DATABASE', 'REDIS_URL']),
    );
    expect((error as ConfigValidationError).code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toContain('KAFKA_BROKERS: KAFKA_BROKERS entries must be host:port');
  });

  it('bounds the heap growing percent (0 leaves V8 its own factor)', () => {
    expect(loadConfig(RuntimeConfig, {}).HEAP_GROWING_PERCENT).toBe(100);
    expect(loadConfig(RuntimeConfig, { HEAP_GROWING_PERCENT: '0' }).HEAP_GROWING_PERCENT).toBe(0);
    expect(() => loadConfig(RuntimeConfig, { HEAP_GROWING_PERCENT: '301' })).toThrow('HEAP_GROWING_PERCENT');
    expect(() => loadConfig(RuntimeConfig, { HEAP_GROWING_PERCENT: 'lots' })).toThrow('HEAP_GROWING_PERCENT');
  });

  it('bounds the bytes of a consumer fetch', () => {
    const brokers = { KAFKA_BROKERS: 'k:9092' };
    expect(loadConfig(KafkaConfig, brokers).KAFKA_FETCH_MAX_BYTES).toBe(4_194_304);
    expect(
      loadConfig(KafkaConfig, { ...brokers, KAFKA_FETCH_MAX_BYTES: '1048576' }).KAFKA_FETCH_MAX_BYTES,
    ).toBe(1_048_576);
    expect(() => loadConfig(KafkaConfig, { ...brokers, KAFKA_FETCH_MAX_BYTES: '1000' })).toThrow(
      'KAFKA_FETCH_MAX_BYTES',
    );
    expect(() => loadConfig(KafkaConfig, { ...brokers, KAFKA_FETCH_MAX_BYTES: '67108865' })).toThrow(
      'KAFKA_FETCH_MAX_BYTES',
    );
  });

  it('puts the management listener on its own port, on HTTP_HOST unless told otherwise', () => {
    const unset = loadConfig(HttpConfig, { HTTP_PORT: '3000' });
    expect([unset.MANAGEMENT_PORT, managementHost(unset)]).toEqual([DEFAULT_MANAGEMENT_PORT, '0.0.0.0']);
    expect(managementHost(loadConfig(HttpConfig, { HTTP_PORT: '3000', HTTP_HOST: '127.0.0.1' }))).toBe(
      '127.0.0.1',
    );
    const both = loadConfig(HttpConfig, {
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      MANAGEMENT_PORT: '0',
      MANAGEMENT_HOST: '10.0.0.7',
    });
    expect([both.HTTP_PORT, both.MANAGEMENT_PORT, managementHost(both)]).toEqual([0, 0, '10.0.0.7']);
    expect(() => loadConfig(HttpConfig, { HTTP_PORT: '3000', MANAGEMENT_PORT: '3000' })).toThrow(
      'MANAGEMENT_PORT: MANAGEMENT_PORT must differ from HTTP_PORT',
    );
    expect(() => loadConfig(HttpConfig, { HTTP_PORT: '3000', MANAGEMENT_PORT: '70000' })).toThrow(
      'MANAGEMENT_PORT',
    );
    expect(managementHost(loadConfig(HttpConfig, { HTTP_PORT: '3000', MANAGEMENT_HOST: '' }))).toBe(
      '0.0.0.0',
    );
  });

  it('requires variables without defaults', () => {
    expect(() => loadConfig(KafkaConfig, {})).toThrow('KAFKA_BROKERS');
    expect(() => loadConfig(HttpConfig, {})).toThrow('HTTP_PORT');
  });

  it('ignores unrelated variables', () => {
    expect(loadConfig(RedisConfig, { PATH: '/bin', REDIS_URL: 'redis://r:6379/2' }).REDIS_URL).toBe(
      'redis://r:6379/2',
    );
  });
});
