import { AttemptTimeoutError } from './attempt.watchdog';
import { type AttemptResult, DeliveryAttemptHandler } from './delivery-attempt.handler';

const codedError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

function failWith(error: unknown): AttemptResult | undefined {
  let result: AttemptResult | undefined;
  new DeliveryAttemptHandler((r) => (result = r)).fail(error);
  return result;
}

const errorOf = (result: AttemptResult | undefined): string | undefined =>
  result !== undefined && 'error' in result ? result.error : undefined;

describe('DeliveryAttemptHandler failures', () => {
  it.each(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])(
    "counts undici's %s as the attempt's TIMEOUT (whichever timer fires first)",
    (code) => {
      expect(failWith(codedError(code, 'Timeout Error'))).toEqual({
        kind: 'failed',
        error: 'TIMEOUT: Timeout Error',
        refused: false,
      });
    },
  );

  it("names the watchdog's timeout and other transport errors by their codes", () => {
    expect(errorOf(failWith(new AttemptTimeoutError(1000)))).toBe('TIMEOUT: no answer within 1000 ms');
    expect(errorOf(failWith(codedError('ECONNREFUSED', 'connect ECONNREFUSED')))).toBe(
      'ECONNREFUSED: connect ECONNREFUSED',
    );
  });

  it('ends once: a later failure does not replace the first result', () => {
    const results: AttemptResult[] = [];
    const handler = new DeliveryAttemptHandler((r) => results.push(r));
    handler.fail(codedError('ECONNRESET', 'socket hang up'));
    handler.fail(codedError('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'));
    expect(results).toHaveLength(1);
  });
});
