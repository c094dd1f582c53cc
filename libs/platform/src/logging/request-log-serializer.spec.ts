import { LOGGED_REQUEST_HEADERS, redactUrl, serializeRequest } from './request-log-serializer';

const SECRET_HEADERS = {
  authorization: 'Bearer ums_live_abcdef',
  cookie: 'session=s3cret',
  'x-hub-signature-256': 'sha256=deadbeef',
  'x-twilio-signature': 'tw+sig=',
  'x-mitto-token': 'mitto-token-value',
  'x-sim-signature': 'sha256=cafe',
  'x-api-key': 'k-123',
  'x-something-new': 'who knows',
};

describe('serializeRequest', () => {
  it('keeps only allowlisted headers', () => {
    const line = serializeRequest({
      method: 'POST',
      url: '/v1/callbacks/twilio/c1?ums_message_id=7',
      headers: {
        host: 'ingest:3003',
        'content-type': 'application/json',
        'user-agent': 'Meta',
        ...SECRET_HEADERS,
      },
      socket: { remoteAddress: '10.0.0.9', remotePort: 5000 },
    });
    expect(line).toEqual({
      id: undefined,
      method: 'POST',
      url: '/v1/callbacks/twilio/c1?ums_message_id=7',
      headers: { host: 'ingest:3003', 'content-type': 'application/json', 'user-agent': 'Meta' },
      remoteAddress: '10.0.0.9',
      remotePort: 5000,
    });
    for (const name of Object.keys(SECRET_HEADERS)) expect(LOGGED_REQUEST_HEADERS.has(name)).toBe(false);
  });

  it('replaces secret-looking query values, in the URL and in a parsed query', () => {
    const line = serializeRequest({
      method: 'GET',
      url: '/v1/callbacks/whatsapp/c1?hub.mode=subscribe&hub.verify_token=v3r1fy&hub.challenge=42',
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': 'v3r1fy', 'hub.challenge': '42' },
      params: { credentialId: 'c1' },
      headers: {},
      // A Fastify request: the socket is the raw request's; ip and protocol by the trusted-proxy rule.
      raw: { socket: { remoteAddress: '10.0.0.9', remotePort: 5000 } },
      ip: '203.0.113.9',
      protocol: 'https',
    });
    expect(line).toMatchObject({
      url: '/v1/callbacks/whatsapp/c1?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=42',
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': '[redacted]', 'hub.challenge': '42' },
      params: { credentialId: 'c1' },
      remoteAddress: '10.0.0.9',
      ip: '203.0.113.9',
      protocol: 'https',
    });
    expect(JSON.stringify(line)).not.toContain('v3r1fy');
  });

  it('leaves the client out, without reading it, once the connection is gone', () => {
    const gone = (): never => {
      throw new TypeError("Cannot read properties of null (reading 'remoteAddress')");
    };
    const line = serializeRequest({
      method: 'POST',
      url: '/api/scheduler/v1/campaigns',
      headers: { 'content-type': 'application/json' },
      // A Fastify request logged after its answer closed the connection: ip and protocol would throw.
      raw: { socket: null },
      get ip(): string {
        return gone();
      },
      get protocol(): string {
        return gone();
      },
    });
    expect(line).toMatchObject({
      method: 'POST',
      url: '/api/scheduler/v1/campaigns',
      remoteAddress: undefined,
    });
    expect(line).not.toHaveProperty('ip');
  });
});

describe('redactUrl', () => {
  it('leaves URLs without secret parameters as they are', () => {
    expect(redactUrl('/v1/campaigns?status=RUNNING&limit=50')).toBe('/v1/campaigns?status=RUNNING&limit=50');
    expect(redactUrl('/health/ready')).toBe('/health/ready');
  });

  it('redacts keys, tokens, signatures and passwords, encoded names too', () => {
    expect(redactUrl('/x?api_key=1&access_token=2&Signature=3&password=4&hub%2Everify_token=5&flag')).toBe(
      '/x?api_key=[redacted]&access_token=[redacted]&Signature=[redacted]&password=[redacted]&hub%2Everify_token=[redacted]&flag',
    );
  });
});
