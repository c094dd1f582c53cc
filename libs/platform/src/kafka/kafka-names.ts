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

  /** The logical name of a physical topic of this namespace; undefined for another namespace's topic. */
  logicalTopic(physicalName: string): string | undefined {
    if (!physicalName.startsWith(this.prefix)) return undefined;
    const logical = physicalName.slice(this.prefix.length);
    return logical === '' ? undefined : logical;
  }

  group(logicalGroupId: string): string {
    return this.prefix + logicalGroupId;
  }
}
