import { AllTopics } from '@ums/contracts';
import {
  checkKafkaConnection,
  ensureTopics,
  KafkaConfig,
  kafkaConnectionOptions,
  KafkaNames,
  loadConfig,
  processEnv,
} from '@ums/platform';
import { Kafka, logLevel } from 'kafkajs';
import { createTopicsOutcome } from './create-topics.outcome';

/**
 * Creates every topic of the contracts that is missing (partitions, retention), the job a
 * deployment runs before the services, and checks the existing ones (create-topics.outcome.ts).
 * Answers the exit code: 2 when an existing topic is weaker than declared, unless `reportOnly`.
 */
export async function createTopics(options: { replication: number; reportOnly: boolean }): Promise<number> {
  const config = loadConfig(KafkaConfig, processEnv());
  const connection = kafkaConnectionOptions(config);
  // Wrong TLS or SASL settings fail here at once, naming the setting, instead of after the retries.
  await checkKafkaConnection(connection, config);
  const kafka = new Kafka({
    clientId: 'ums-create-topics',
    ...connection,
    logLevel: logLevel.WARN,
  });
  const result = await ensureTopics(
    kafka,
    AllTopics,
    options.replication,
    new KafkaNames(config.KAFKA_NAMESPACE),
  );
  const outcome = createTopicsOutcome(result, options.reportOnly);
  process.stdout.write(outcome.lines.map((line) => `${line}\n`).join(''));
  return outcome.exitCode;
}
