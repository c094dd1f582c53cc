import 'reflect-metadata';
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
 * Usage: create-topics [--replication N] (default 1) [--report-only].
 */
async function main(): Promise<void> {
  const replicationArg = process.argv.indexOf('--replication');
  const replication = replicationArg > 0 ? Number(process.argv[replicationArg + 1]) : 1;
  if (!Number.isInteger(replication) || replication < 1)
    throw new Error('--replication must be a positive integer');
  const config = loadConfig(KafkaConfig, processEnv());
  const connection = kafkaConnectionOptions(config);
  // Wrong TLS or SASL settings fail here at once, naming the setting, instead of after the retries.
  await checkKafkaConnection(connection, config);
  const kafka = new Kafka({
    clientId: 'ums-create-topics',
    ...connection,
    logLevel: logLevel.WARN,
  });
  const result = await ensureTopics(kafka, AllTopics, replication, new KafkaNames(config.KAFKA_NAMESPACE));
  const outcome = createTopicsOutcome(result, process.argv.includes('--report-only'));
  process.stdout.write(outcome.lines.map((line) => `${line}\n`).join(''));
  process.exitCode = outcome.exitCode;
}

main().catch((error: unknown) => {
  process.stderr.write(`create-topics failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
