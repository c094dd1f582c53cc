import { MAX_SETTINGS_KEYS, settingsProblem } from './settings-record.validator';

describe('settingsProblem', () => {
  it('accepts flat string, number and boolean settings', () => {
    expect(settingsProblem({})).toBeUndefined();
    expect(
      settingsProblem({ phoneNumberId: '1234', region: 'eu-west-1', sandbox: false, timeoutMs: 5000 }),
    ).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: MAX_SETTINGS_KEYS }, (_, i) => [`k${i}`, i]));
    expect(settingsProblem(many)).toBeUndefined();
  });

  it.each([
    ['null', null, 'must be an object'],
    ['an array', ['a'], 'must be an object'],
    ['a string', 'x', 'must be an object'],
    ['a nested object', { a: { b: 1 } }, "value of 'a' must be"],
    ['an array value', { a: [1] }, "value of 'a' must be"],
    ['null value', { a: null }, "value of 'a' must be"],
    ['a non-finite number', { a: Number.POSITIVE_INFINITY }, "value of 'a' must be"],
    ['a long string', { a: 'x'.repeat(1025) }, "value of 'a' must be"],
    ['a bad key', { 'a b': 1 }, "key 'a b' must be"],
    ['an empty key', { '': 1 }, "key '' must be"],
    ['a secret-looking key', { authToken: 'abc' }, "key 'authToken' looks like a secret"],
    ['an api key', { api_key: 'abc' }, "key 'api_key' looks like a secret"],
    ['a password', { smtpPassword: 'abc' }, "key 'smtpPassword' looks like a secret"],
  ])('refuses %s', (_label, value, reason) => {
    expect(settingsProblem(value)).toContain(reason);
  });

  it('refuses too many keys', () => {
    const tooMany = Object.fromEntries(Array.from({ length: MAX_SETTINGS_KEYS + 1 }, (_, i) => [`k${i}`, i]));
    expect(settingsProblem(tooMany)).toBe(`must have at most ${MAX_SETTINGS_KEYS} keys`);
  });
});
