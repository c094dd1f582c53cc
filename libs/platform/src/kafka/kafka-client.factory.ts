import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { PinoLogger } from 'nestjs-pino';
import type { KafkaConnectionOptions } from './kafka-security';

/** Brokers, TLS and SASL from kafkaConnectionOptions (kafka-security.ts), and the client's id. */
export interface KafkaClientSettings extends KafkaConnectionOptions {
  readonly clientId: string;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** kafkajs client whose own logs go to our JSON log, one level below theirs (they are chatty). */
export function createKafkaClient(settings: KafkaClientSettings, logger: PinoLogger): Kafka {
  return new Kafka({
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    ssl: settings.ssl,
    sasl: settings.sasl,
    connectionTimeout: 5_000,
    requestTimeout: 30_000,
    retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 10_000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, ...extra } = log;
        logger[LEVELS[level] ?? 'info']({ kafka: namespace, ...extra }, message);
      },
  });
}
