import { answerHeaders, FORWARDED_HEADERS, forwardedHeaders, isEventStream } from './console-proxy.service';

describe('the headers the console passes on', () => {
  it('keeps only the allowlisted request headers and the API host', () => {
    const headers = forwardedHeaders({
      host: 'campaign-scheduler',
      authorization: 'Bearer umsk_x',
      'x-ums-tenant': 'acme',
      'idempotency-key': 'k-1',
      'content-type': 'application/json',
      'content-length': '12',
      accept: 'text/event-stream',
      cookie: 'session=1',
      'x-forwarded-for': '203.0.113.9',
      'accept-encoding': 'gzip',
      'x-request-id': 'r-1',
      connection: 'keep-alive',
    });
    expect(headers).toEqual({
      host: 'campaign-scheduler',
      authorization: 'Bearer umsk_x',
      'x-ums-tenant': 'acme',
      'idempotency-key': 'k-1',
      'content-type': 'application/json',
      'content-length': '12',
      accept: 'text/event-stream',
    });
    expect(Object.keys(headers).sort()).toEqual(['host', ...FORWARDED_HEADERS].sort());
  });

  it('leaves out what the browser did not send', () => {
    expect(forwardedHeaders({ host: 'h', accept: 'application/json' })).toEqual({
      host: 'h',
      accept: 'application/json',
    });
  });

  it('marks event streams to pass unbuffered, and leaves other answers as they are', () => {
    expect(isEventStream('text/event-stream; charset=utf-8')).toBe(true);
    expect(isEventStream('application/json')).toBe(false);
    expect(isEventStream(undefined)).toBe(false);
    expect(answerHeaders({ 'content-type': 'text/event-stream' })).toEqual({
      'content-type': 'text/event-stream',
      'x-accel-buffering': 'no',
      'cache-control': 'no-cache',
    });
    const json = { 'content-type': 'application/json', etag: '"1"' };
    expect(answerHeaders(json)).toBe(json);
  });
});
