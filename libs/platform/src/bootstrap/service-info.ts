import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Who this process is: used as Kafka client id, lease owner, log and metric label. */
export class ServiceInfo {
  readonly instanceId: string;

  constructor(readonly name: string) {
    this.instanceId = `${name}-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  }
}
