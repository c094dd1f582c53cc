import { RunRequestReason, type RunRequestedV1, Topics } from '@ums/contracts';
import { lastValueFrom } from 'rxjs';
import { KafkaEventClient } from './kafka-event.client';
import type { KafkaProducer } from './kafka-producer.service';

function clientWith(publish: jest.Mock): KafkaEventClient {
  return new KafkaEventClient({ publish } as unknown as KafkaProducer);
}

const request: RunRequestedV1 = {
  runId: '01J0000000000000000000000R',
  campaignId: '01J0000000000000000000000C',
  tenantId: 'tenant-a',
  leaseEpoch: 1,
  reason: RunRequestReason.Manual,
  requestedAt: '2026-01-01T00:00:00.000Z',
};

describe('KafkaEventClient', () => {
  it('publishes emitted values to the contract topic of the pattern, after Kafka acknowledged', async () => {
    let acknowledge: () => void = () => undefined;
    const publish = jest.fn(() => new Promise<void>((resolve) => (acknowledge = resolve)));
    let done = false;
    const emitted = clientWith(publish)
      .emitTo(Topics.runRequested, [request])
      .then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(publish).toHaveBeenCalledWith(Topics.runRequested, [request]);
    expect(done).toBe(false);
    acknowledge();
    await emitted;
    expect(done).toBe(true);
  });

  it('fails the emit when Kafka refuses', async () => {
    const publish = jest.fn(() => Promise.reject(new Error('broker down')));
    await expect(clientWith(publish).emitTo(Topics.runRequested, [request])).rejects.toThrow('broker down');
  });

  it('refuses a pattern that is not a contract topic, and request-reply', async () => {
    const client = clientWith(jest.fn());
    await expect(lastValueFrom(client.emit('no.such.topic', [request]))).rejects.toMatchObject({
      code: 'KAFKA_TOPIC_UNKNOWN',
    });
    await expect(lastValueFrom(client.send(Topics.runRequested.name, [request]))).rejects.toMatchObject({
      code: 'KAFKA_REPLY_UNSUPPORTED',
    });
  });
});
