import { KafkaHeaders } from '@ums/contracts';
import { LAST_ERROR_HEADER_CHARS, originTopicOf, retryForwardHeaders } from './retry-forward';

describe('retryForwardHeaders', () => {
  it('keeps the record headers and sets when, how often, where from and why', () => {
    const headers = retryForwardHeaders(
      { 'x-trace': 't1', [KafkaHeaders.attempt]: '1' },
      { dueAt: 1_700_000_000_000, attempt: 2, originTopic: 'ums.batches.v1', lastError: 'HTTP 503' },
    );
    expect(headers).toEqual({
      'x-trace': 't1',
      [KafkaHeaders.dueAt]: '1700000000000',
      [KafkaHeaders.attempt]: '2',
      [KafkaHeaders.originTopic]: 'ums.batches.v1',
      [KafkaHeaders.lastError]: 'HTTP 503',
    });
  });

  it('bounds the last error', () => {
    const headers = retryForwardHeaders(
      {},
      { dueAt: 0, attempt: 1, originTopic: 't', lastError: 'e'.repeat(5000) },
    );
    expect(headers[KafkaHeaders.lastError]).toHaveLength(LAST_ERROR_HEADER_CHARS);
  });
});

describe('originTopicOf', () => {
  const headers = { [KafkaHeaders.originTopic]: 'written-by-us' };

  it('trusts the origin header on a retry tier', () => {
    expect(originTopicOf(headers, { topic: 'main', isRetryTier: true })).toBe('written-by-us');
    expect(originTopicOf({}, { topic: 'main', isRetryTier: true })).toBe('main');
  });

  it('ignores what a producer wrote on a main topic', () => {
    expect(originTopicOf(headers, { topic: 'main', isRetryTier: false })).toBe('main');
  });
});
