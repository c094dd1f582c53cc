import { CloudEventHeaders, Topics } from '@ums/contracts';
import { CloudEventStamp, onceNow } from './cloud-event-headers';

const status = {
  eventId: 'msg-7-SENT-DELIVERED',
  messageId: '7',
  tenantId: 'acme',
  campaignId: 'cmp_1',
  occurredAt: '2030-05-06T07:08:09.123Z',
};

function stampOf(topic: typeof Topics.messageStatus | typeof Topics.inboundMessages): CloudEventStamp {
  if (topic.cloudEvent === undefined) throw new Error(`${topic.name} has no cloudEvent`);
  return new CloudEventStamp({ cloudEvent: topic.cloudEvent, source: '/ums/notification-sender' });
}

describe('CloudEvents headers of a record (Kafka binding, binary mode)', () => {
  it('names the event by its id, type, source, time and subject, with the JSON content type', () => {
    expect(stampOf(Topics.messageStatus).headersOf(status, undefined, () => 'never')).toEqual({
      ce_specversion: '1.0',
      ce_id: 'msg-7-SENT-DELIVERED',
      ce_type: 'io.ums.message.status.v1',
      ce_source: '/ums/notification-sender',
      ce_time: '2030-05-06T07:08:09.123Z',
      ce_subject: '7',
      'content-type': 'application/json',
    });
  });

  it('writes the header names the contracts name', () => {
    const headers = stampOf(Topics.messageStatus).headersOf(status, undefined, () => 'never');
    expect(Object.keys(headers).sort()).toEqual(Object.values(CloudEventHeaders).sort());
  });

  it("keeps the caller's headers, and has no subject where the topic names none", () => {
    const headers = stampOf(Topics.inboundMessages).headersOf(
      { eventId: 'in-1', occurredAt: status.occurredAt },
      { 'ums-dead-letter-replay': '42' },
      () => 'never',
    );
    expect(headers).toMatchObject({ 'ums-dead-letter-replay': '42', ce_id: 'in-1' });
    expect(headers).not.toHaveProperty('ce_subject');
  });

  it('writes another ISO form of the time in RFC 3339, and the time of publishing for none or a bad one', () => {
    const stamp = stampOf(Topics.messageStatus);
    const at = (occurredAt: unknown): unknown =>
      stamp.headersOf({ ...status, occurredAt }, undefined, () => '2031-01-01T00:00:00.000Z')['ce_time'];
    expect(at('2030-05-06T09:08:09+02:00')).toBe('2030-05-06T07:08:09.000Z');
    expect(at(undefined)).toBe('2031-01-01T00:00:00.000Z');
    expect(at('yesterday')).toBe('2031-01-01T00:00:00.000Z');
  });

  it('reads the clock once per publish, and only when a value needs it', () => {
    let reads = 0;
    const now = onceNow();
    const counted = (): string => {
      reads++;
      return now();
    };
    const stamp = stampOf(Topics.messageStatus);
    stamp.headersOf(status, undefined, counted);
    expect(reads).toBe(0);
    const first = stamp.headersOf({ ...status, occurredAt: undefined }, undefined, now)['ce_time'];
    const second = stamp.headersOf({ ...status, occurredAt: undefined }, undefined, now)['ce_time'];
    expect(second).toBe(first);
  });

  it('keeps the headers of forwarded bytes that name an event, and stamps JSON values that do not', () => {
    const stamp = stampOf(Topics.messageStatus);
    const kept = { ce_id: 'original', ce_source: '/ums/campaign-scheduler', 'ums-dead-letter-replay': '3' };
    expect(stamp.rawHeadersOf(Buffer.from(JSON.stringify(status)), kept, onceNow())).toBe(kept);
    expect(stamp.rawHeadersOf(JSON.stringify(status), { x: '1' }, onceNow())).toMatchObject({
      x: '1',
      ce_id: status.eventId,
      ce_subject: '7',
    });
    expect(stamp.rawHeadersOf('not json', { x: '1' }, onceNow())).toEqual({ x: '1' });
    expect(stamp.rawHeadersOf('[1]', undefined, onceNow())).toBeUndefined();
    expect(stamp.rawHeadersOf('{"other":1}', undefined, onceNow())).toBeUndefined();
    expect(stamp.rawHeadersOf(null, undefined, onceNow())).toBeUndefined();
  });
});
