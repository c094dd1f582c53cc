/**
 * Physical topic and consumer-group names. With a namespace (KAFKA_NAMESPACE), every topic and
 * group gets it as a prefix, so several environments, or parallel test suites, can share one
 * cluster without reading each other's messages. Code always speaks the contracts' logical names.
 */
export class KafkaNames {
  private readonly prefix: string;

  constructor(namespace?: string) {
    this.prefix = namespace === undefined || namespace === '' ? '' : `${namespace}.`;
  }

  topic(logicalName: string): string {
    return this.prefix + logicalName;
  }

  group(logicalGroupId: string): string {
    return this.prefix + logicalGroupId;
  }
}
