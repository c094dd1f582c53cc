import { GatewayErrorCode, HttpErrorCode } from '@ums/contracts';
import { pathRefusal, upstreamFailure } from './upstream-error';

/** An error with a code, as Node, undici and @fastify/reply-from raise them, wrapping `cause`. */
function coded(code: string, message: string, cause?: Error): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

const refused = coded('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:3000');

describe('upstreamFailure', () => {
  it('answers 503 UPSTREAM_UNAVAILABLE when no connection could be made, naming the API only', () => {
    for (const error of [
      coded('FST_REPLY_FROM_INTERNAL_SERVER_ERROR', refused.message, refused),
      coded('FST_REPLY_FROM_SERVICE_UNAVAILABLE', 'Service Unavailable', coded('ENOTFOUND', 'getaddrinfo x')),
      coded('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
    ]) {
      const failure = upstreamFailure('campaign-scheduler', error);
      expect(failure).toEqual({
        status: 503,
        code: GatewayErrorCode.UpstreamUnavailable,
        body: {
          error: {
            code: 'UPSTREAM_UNAVAILABLE',
            message: 'The campaign-scheduler API is not reachable from the console; retry later',
          },
        },
      });
    }
  });

  it('answers 504 UPSTREAM_TIMEOUT when the answer did not begin in time', () => {
    const timedOut = coded(
      'FST_REPLY_FROM_GATEWAY_TIMEOUT',
      'Gateway Timeout',
      coded('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'),
    );
    expect(upstreamFailure('webhook-dispatcher', timedOut)).toMatchObject({
      status: 504,
      code: GatewayErrorCode.UpstreamTimeout,
      body: { error: { message: 'The webhook-dispatcher API did not answer in time' } },
    });
  });

  it('answers 502 UPSTREAM_FAILED for a broken connection or anything else', () => {
    for (const error of [
      coded('ECONNRESET', 'socket hang up'),
      coded('UND_ERR_SOCKET', 'other side closed'),
      'x',
    ])
      expect(upstreamFailure('webhook-dispatcher', error)).toMatchObject({
        status: 502,
        code: GatewayErrorCode.UpstreamFailed,
      });
  });

  it('never puts the error text (with the address) in the answer', () => {
    const body = JSON.stringify(upstreamFailure('campaign-scheduler', refused).body);
    expect(body).not.toContain('10.1.2.3');
    expect(body).not.toContain('ECONNREFUSED');
  });
});

describe('pathRefusal', () => {
  it("turns the proxy's bare 400 for a path leaving the prefix into VALIDATION_FAILED on the path", () => {
    const bare = Object.assign(new Error('source/request contain invalid characters'), { statusCode: 400 });
    expect(pathRefusal(bare)).toMatchObject({
      code: HttpErrorCode.ValidationFailed,
      fields: [
        { field: 'path', reason: "must be a path of the API, without '..' segments or encoded slashes" },
      ],
    });
    const coded = Object.assign(new Error('body too large'), {
      statusCode: 413,
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    });
    expect(pathRefusal(coded)).toBe(coded);
  });
});
