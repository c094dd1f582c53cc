import { ConfigValidationError, loadConfig } from '@ums/platform';
import { ConsoleProxyConfig, isApiOrigin, originOf } from './console-proxy.config';

const VALID = {
  CONSOLE_SCHEDULER_URL: 'http://campaign-scheduler',
  CONSOLE_DISPATCHER_URL: 'https://dispatcher.internal:8443/',
};

/** The variables the loader names (once each), for an environment it refuses. */
function refused(env: Record<string, string>): string[] {
  try {
    loadConfig(ConsoleProxyConfig, env);
  } catch (error: unknown) {
    if (error instanceof ConfigValidationError) return [...new Set(error.issues.map((issue) => issue.field))];
    throw error;
  }
  return [];
}

describe('ConsoleProxyConfig', () => {
  it('takes http and https origins, with the default upstream timeout', () => {
    const config = loadConfig(ConsoleProxyConfig, VALID);
    expect(config.CONSOLE_SCHEDULER_URL).toBe('http://campaign-scheduler');
    expect(config.CONSOLE_DISPATCHER_URL).toBe('https://dispatcher.internal:8443/');
    expect(config.CONSOLE_UPSTREAM_TIMEOUT_MS).toBe(300_000);
    expect(loadConfig(ConsoleProxyConfig, { ...VALID, CONSOLE_UPSTREAM_TIMEOUT_MS: '5000' })).toMatchObject({
      CONSOLE_UPSTREAM_TIMEOUT_MS: 5_000,
    });
  });

  it('requires both API URLs and names each one missing', () => {
    expect(refused({})).toEqual(['CONSOLE_SCHEDULER_URL', 'CONSOLE_DISPATCHER_URL']);
  });

  it('refuses URLs that are not an http(s) origin, naming the variable', () => {
    for (const bad of [
      'campaign-scheduler:3000',
      'ftp://campaign-scheduler',
      'http://',
      'http://campaign-scheduler/v1',
      'http://campaign-scheduler?x=1',
      'http://campaign-scheduler#top',
      'http://user:secret@campaign-scheduler',
      'http://campaign-scheduler:99999',
    ]) {
      expect([bad, refused({ ...VALID, CONSOLE_SCHEDULER_URL: bad })]).toEqual([
        bad,
        ['CONSOLE_SCHEDULER_URL'],
      ]);
    }
  });

  it('keeps the upstream timeout between 1 s and 1 h', () => {
    for (const bad of ['999', '3600001', 'soon'])
      expect(refused({ ...VALID, CONSOLE_UPSTREAM_TIMEOUT_MS: bad })).toEqual([
        'CONSOLE_UPSTREAM_TIMEOUT_MS',
      ]);
  });
});

describe('isApiOrigin and originOf', () => {
  it('accept an origin with or without its trailing slash, and give it without', () => {
    expect(isApiOrigin('http://127.0.0.1:3000')).toBe(true);
    expect(isApiOrigin('HTTPS://API.example.com/')).toBe(true);
    expect(isApiOrigin(3000)).toBe(false);
    expect(originOf('https://api.example.com:443/')).toBe('https://api.example.com');
    expect(originOf('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000');
  });
});
