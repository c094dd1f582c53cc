import { IdempotencyErrorCode } from '@ums/contracts';
import { InvalidInputError } from '../errors/coded-error';
import {
  idempotencyKeyOf,
  idempotencyRouteOf,
  MAX_IDEMPOTENCY_ROUTE_CHARS,
  requestFingerprint,
} from './idempotency-key';

/** The refusal idempotencyKeyOf throws for `header` (fails the test if it throws none). */
function refusal(header: string | string[]): InvalidInputError {
  try {
    idempotencyKeyOf(header);
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error(`expected ${JSON.stringify(header)} to be refused`);
}

describe('idempotencyKeyOf', () => {
  it('reads no key from a request without the header', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
  });

  it('takes a bare key and a quoted Structured Fields string as the same key', () => {
    expect(idempotencyKeyOf('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf('"say \\"hi\\" \\\\ bye"')).toBe('say "hi" \\ bye');
    expect(idempotencyKeyOf('order 42 ~!')).toBe('order 42 ~!');
  });

  it('takes 255 characters and refuses 256, naming the header', () => {
    expect(idempotencyKeyOf('k'.repeat(255))).toHaveLength(255);
    const tooLong = refusal('k'.repeat(256));
    expect(tooLong.code).toBe(IdempotencyErrorCode.KeyInvalid);
    expect(tooLong.fields).toEqual([
      { field: 'Idempotency-Key', reason: 'must be at most 255 characters, got 256' },
    ]);
  });

  it('refuses an empty key, characters outside printable ASCII and a repeated header', () => {
    expect(refusal('').fields[0]?.reason).toBe('must not be empty');
    expect(refusal('""').fields[0]?.reason).toBe('must not be empty');
    expect(refusal('k\u00e9y').fields[0]?.reason).toMatch(/printable ASCII/);
    expect(refusal('tab\there').fields[0]?.reason).toMatch(/printable ASCII/);
    expect(refusal(['a', 'b']).fields[0]?.reason).toBe('must be sent once');
  });
});

describe('requestFingerprint', () => {
  it('is the same for the same body whatever the order of its keys', () => {
    const a = requestFingerprint({ name: 'x', template: { text: 'Hi', subject: 's' }, list: [1, 2] });
    const b = requestFingerprint({ list: [1, 2], template: { subject: 's', text: 'Hi' }, name: 'x' });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
  });

  it('differs when a value, an array order or a key differs', () => {
    const base = requestFingerprint({ name: 'x', list: [1, 2] });
    expect(requestFingerprint({ name: 'y', list: [1, 2] })).not.toBe(base);
    expect(requestFingerprint({ name: 'x', list: [2, 1] })).not.toBe(base);
    expect(requestFingerprint({ name: 'x', list: [1, 2], extra: null })).not.toBe(base);
  });

  it('takes a request without a body as null', () => {
    expect(requestFingerprint(undefined)).toBe(requestFingerprint(null));
  });
});

describe('idempotencyRouteOf', () => {
  it('keeps a route without path parameters as declared, whatever the query', () => {
    expect(idempotencyRouteOf('POST', '/v1/campaigns', '/v1/campaigns?x=1')).toBe('POST /v1/campaigns');
  });

  it('keys a route with path parameters on the path requested, without its query', () => {
    const declared = '/v1/campaigns/:campaignId/test-sends';
    const a = idempotencyRouteOf('POST', declared, '/v1/campaigns/cmp_A/test-sends?dry=1');
    expect(a).toBe('POST /v1/campaigns/cmp_A/test-sends');
    expect(idempotencyRouteOf('POST', declared, '/v1/campaigns/cmp_B/test-sends')).not.toBe(a);
  });

  it('hashes a path too long for the column, or not plain ASCII, keeping paths apart', () => {
    const declared = '/v1/campaigns/:campaignId/test-sends';
    const long = (id: string): string =>
      idempotencyRouteOf('POST', declared, `/v1/campaigns/${id}/test-sends`);
    const [a, b] = [long('a'.repeat(90)), long(`${'a'.repeat(89)}b`)];
    for (const route of [a, b]) {
      expect(route.length).toBeLessThanOrEqual(MAX_IDEMPOTENCY_ROUTE_CHARS);
      expect(route).toMatch(/^POST \/v1\/campaigns\/:campaignId\/test-sends#[A-Za-z0-9_-]{43}$/);
    }
    expect(a).not.toBe(b);
    const spaced = idempotencyRouteOf('POST', declared, '/v1/campaigns/a b/test-sends');
    expect(spaced).toMatch(/#[A-Za-z0-9_-]{43}$/);
  });

  it('uses the path when the route is not known', () => {
    expect(idempotencyRouteOf('POST', undefined, '/v1/things?x=1')).toBe('POST /v1/things');
  });
});
