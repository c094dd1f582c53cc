import { KafkaHeaders, Topics } from '@ums/contracts';
import { planWebhookWriteBack } from '@ums/domain';
import { replayHeaders, replayTarget, replayValue } from './dead-letter-replay';

describe('dead letter replay rules', () => {
  it('goes back to the topic the message was first consumed from', () => {
    expect(replayTarget({}, Topics.sendRequests.name)).toEqual({ ok: true, topic: Topics.sendRequests.name });
    // A copy that failed on a retry tier names its first topic.
    expect(
      replayTarget({ [KafkaHeaders.originTopic]: Topics.batches.name }, Topics.sendRetry5s.name),
    ).toEqual({ ok: true, topic: Topics.batches.name });
  });

  it('sends a webhook delivery dead-lettered after it came from a status event back to the deliveries topic', () => {
    // The dispatcher's dead letter of a delivery out of retries, fanned out from a status event.
    const { deadLetters } = planWebhookWriteBack({
      batch: [
        {
          job: {
            deliveryId: '7',
            subscriberId: 'sub-a',
            eventId: 'evt-7',
            eventType: 'message.status',
            payload: '{"type":"message.status"}',
            attempt: 6,
            firstAttemptAt: '2024-01-01T00:00:00.000Z',
            source: { topic: Topics.messageStatus.name, partition: 0, offset: '12' },
          },
          kind: 'attempted',
          result: { kind: 'failed', status: 500, error: 'HTTP 500' },
        },
      ],
      inWindow: new Map(),
      isAlive: () => true,
      policy: { threshold: 20, windowMs: 60_000 },
      retryDelaysMs: [1, 2, 3, 4, 5],
      jitterRatio: 0,
      now: 0,
      random: () => 0,
    });
    const [letter] = deadLetters;
    expect(letter?.source.topic).toBe(Topics.messageStatus.name);
    expect(replayTarget(letter?.headers ?? {}, letter?.source.topic)).toEqual({
      ok: true,
      topic: Topics.webhookDeliveries.name,
    });
  });

  it('refuses the dead-letter topic itself, unknown topics and other namespaces', () => {
    expect(replayTarget({}, Topics.deadLetters.name)).toMatchObject({ ok: false });
    expect(replayTarget({}, 'not.a.topic')).toEqual({
      ok: false,
      reason: 'not.a.topic is not a topic a dead letter goes back to',
    });
    expect(replayTarget({}, undefined)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('namespace'),
    });
  });

  it('drops the retry hop’s headers, keeps the others and names the dead letter', () => {
    expect(
      replayHeaders(
        {
          [KafkaHeaders.dueAt]: '1',
          [KafkaHeaders.attempt]: '4',
          [KafkaHeaders.originTopic]: Topics.batches.name,
          [KafkaHeaders.lastError]: 'HTTP_500',
          [KafkaHeaders.partialRetry]: '1',
          [KafkaHeaders.deadLetterReplay]: '3',
          traceparent: '00-abc',
        },
        '42',
      ),
    ).toEqual({
      [KafkaHeaders.partialRetry]: '1',
      traceparent: '00-abc',
      [KafkaHeaders.deadLetterReplay]: '42',
    });
  });

  it('gives back the original bytes', () => {
    expect(replayValue('{"a":1}', 'utf8')?.toString('utf8')).toBe('{"a":1}');
    expect(replayValue(Buffer.from([0xff, 0x00]).toString('base64'), 'base64')).toEqual(
      Buffer.from([0xff, 0x00]),
    );
    expect(replayValue(null, 'utf8')).toBeNull();
  });
});
