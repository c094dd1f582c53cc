import { loadConfig } from '@ums/platform';
import { TestSendsConfig } from './test-sends.config';

describe('TestSendsConfig', () => {
  it('allows 10 test sends per tenant and minute unless told otherwise', () => {
    expect(loadConfig(TestSendsConfig, {}).TEST_SENDS_PER_MINUTE).toBe(10);
    expect(loadConfig(TestSendsConfig, { TEST_SENDS_PER_MINUTE: '3' }).TEST_SENDS_PER_MINUTE).toBe(3);
  });

  it('refuses a bound that is not a whole number from 1 to 1000, naming the variable', () => {
    for (const value of ['0', '-1', '1001', 'many', '2.5']) {
      expect(() => loadConfig(TestSendsConfig, { TEST_SENDS_PER_MINUTE: value })).toThrow(
        'TEST_SENDS_PER_MINUTE',
      );
    }
  });
});
