import { loadConfig } from '@ums/platform';
import { credentialListIssues } from './credential-list.validator';
import { CredentialsConfig } from './credentials.config';

describe('SIMULATOR_CREDENTIALS', () => {
  it('is empty by default', () => {
    expect(loadConfig(CredentialsConfig, {}).SIMULATOR_CREDENTIALS).toEqual([]);
  });

  it('takes a JSON array of PUT bodies with their credential ids', () => {
    const value = JSON.stringify([
      { credentialId: 'c1', provider: 'simulator', capacityTps: 500 },
      {
        credentialId: 'c2',
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '123' },
        callbacks: { readRate: 0.5 },
      },
    ]);
    expect(
      loadConfig(CredentialsConfig, { SIMULATOR_CREDENTIALS: value }).SIMULATOR_CREDENTIALS,
    ).toHaveLength(2);
  });

  it('names every problem of every entry', () => {
    const issues = credentialListIssues([
      { credentialId: 'c1', provider: 'simulator', capacity: 5 },
      { credentialId: 'c2', provider: 'twilio' },
      { credentialId: 'c3', provider: 'simulator', latency: { p50Ms: 9, p99Ms: 1 } },
      { credentialId: 'c3', provider: 'simulator' },
      'not an object',
      { provider: 'nope' },
    ]);
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: '[0].capacity', reason: 'property capacity should not exist' },
        { field: '[1].account.accountSid', reason: 'is required for provider twilio' },
        { field: '[2].latency', reason: 'p50Ms must not exceed p99Ms' },
        { field: '[3].credentialId', reason: 'appears twice' },
        { field: '[4]', reason: 'must be an object' },
      ]),
    );
    expect(new Set(issues.filter((i) => i.field.startsWith('[5].')).map((i) => i.field))).toEqual(
      new Set(['[5].credentialId', '[5].provider']),
    );
  });

  it('refuses a value that is not a JSON array, at start-up', () => {
    expect(() => loadConfig(CredentialsConfig, { SIMULATOR_CREDENTIALS: '{not json' })).toThrow(
      /SIMULATOR_CREDENTIALS/,
    );
    expect(() => loadConfig(CredentialsConfig, { SIMULATOR_CREDENTIALS: '{"a":1}' })).toThrow(/JSON array/);
  });
});
