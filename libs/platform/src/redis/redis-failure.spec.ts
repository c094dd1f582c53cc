import { describeRedisFailure } from './redis-failure';

const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('describeRedisFailure', () => {
  it('names the setting behind each misconfiguration, and marks it permanent', () => {
    const cases: [unknown, string, string][] = [
      [
        new Error('WRONGPASS invalid username-password pair or user is disabled.'),
        'REDIS_AUTH_FAILED',
        'REDIS_USERNAME/REDIS_PASSWORD',
      ],
      [new Error('NOAUTH Authentication required.'), 'REDIS_AUTH_FAILED', 'REDIS_USERNAME/REDIS_PASSWORD'],
      [
        new Error("NOPERM this user has no permissions to run the 'evalsha' command"),
        'REDIS_ACL_DENIED',
        'REDIS_USERNAME',
      ],
      [coded('SELF_SIGNED_CERT_IN_CHAIN'), 'REDIS_TLS_UNTRUSTED', 'REDIS_TLS_CA_FILE'],
      [coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'REDIS_TLS_UNTRUSTED', 'REDIS_TLS_CA_FILE'],
      [coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'REDIS_TLS_NOT_SPOKEN', 'REDIS_URL'],
      [
        coded('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'),
        'REDIS_TLS_REFUSED',
        'REDIS_TLS_CERT_FILE/REDIS_TLS_KEY_FILE',
      ],
      [new Error('ERR This instance has cluster support disabled'), 'REDIS_MODE_MISMATCH', 'REDIS_MODE'],
      [new Error('MOVED 3999 127.0.0.1:7001'), 'REDIS_MODE_MISMATCH', 'REDIS_MODE'],
      [
        new Error("CROSSSLOT Keys in request don't hash to the same slot"),
        'REDIS_CROSSSLOT',
        'keys (hash tags)',
      ],
      [
        new Error(
          'All sentinels are unreachable. Retrying from scratch after 10ms. Last error: ERR No such master with that name',
        ),
        'REDIS_SENTINEL_FAILED',
        'REDIS_SENTINEL_MASTER',
      ],
      [
        new Error(
          'All sentinels are unreachable. Retrying from scratch after 10ms. Last error: WRONGPASS invalid',
        ),
        'REDIS_AUTH_FAILED',
        'REDIS_SENTINEL_PASSWORD',
      ],
    ];
    for (const [error, code, setting] of cases)
      expect(describeRedisFailure(error)).toMatchObject({ code, setting, permanent: true });
  });

  it('looks into the last node error of a cluster, and tells a closed connection by TLS or not', () => {
    const slotsError = Object.assign(new Error('Failed to refresh slots cache.'), {
      lastNodeError: new Error('WRONGPASS invalid username-password pair'),
    });
    expect(describeRedisFailure(slotsError)).toMatchObject({ code: 'REDIS_AUTH_FAILED' });
    const closed = new Error('closed');
    expect(describeRedisFailure(closed, { closedBeforeReply: true })).toMatchObject({ setting: 'REDIS_URL' });
    expect(describeRedisFailure(closed, { closedBeforeReply: true, tls: true })).toMatchObject({
      setting: 'REDIS_TLS_CERT_FILE/REDIS_TLS_KEY_FILE',
    });
  });

  it('leaves an unreachable or recovering server transient', () => {
    expect(describeRedisFailure(coded('ECONNREFUSED'))).toMatchObject({
      code: 'REDIS_UNREACHABLE',
      permanent: false,
    });
    expect(describeRedisFailure(new Error('CLUSTERDOWN The cluster is down'))).toMatchObject({
      permanent: false,
    });
    expect(
      describeRedisFailure(
        new Error('All sentinels are unreachable. Retrying. Last error: connect ECONNREFUSED'),
      ),
    ).toMatchObject({ setting: 'REDIS_SENTINELS', permanent: false });
  });
});
