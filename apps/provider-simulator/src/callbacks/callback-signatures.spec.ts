import { createHmac } from 'node:crypto';
import { hubSignature256, twilioSignature } from './callback-signatures';

describe('twilioSignature', () => {
  // Twilio's worked examples ("Validating signatures from Twilio", twilio.com/docs/usage/security):
  // the same URL and token, two editions of the documentation with different caller numbers.
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const token = '12345';

  it.each([
    ['+14158675310', 'GvWf1cFY/Q7PnoempGyD5oXAezc='],
    ['+12349013030', '0/KCTR6DLpKmkAf8muzZqo1nDgQ='],
  ])("matches Twilio's documented example (caller %s)", (caller, expected) => {
    const params = {
      CallSid: 'CA1234567890ABCDE',
      Caller: caller,
      Digits: '1234',
      From: caller,
      To: '+18005551212',
    };
    expect(twilioSignature(token, url, params)).toBe(expected);
  });

  it('sorts parameters by name, whatever order they come in', () => {
    const a = twilioSignature('t', 'https://x.example/cb?ums_message_id=7', {
      To: '+1',
      MessageSid: 'SM1',
      AccountSid: 'AC1',
    });
    const b = twilioSignature('t', 'https://x.example/cb?ums_message_id=7', {
      AccountSid: 'AC1',
      MessageSid: 'SM1',
      To: '+1',
    });
    expect(a).toBe(b);
    const expected = createHmac('sha1', 't')
      .update('https://x.example/cb?ums_message_id=7AccountSidAC1MessageSidSM1To+1')
      .digest('base64');
    expect(a).toBe(expected);
  });
});

describe('hubSignature256', () => {
  it('matches the documented X-Hub-Signature-256 example (GitHub webhooks use the same scheme)', () => {
    expect(hubSignature256("It's a Secret to Everybody", 'Hello, World!')).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('signs the raw UTF-8 bytes of the body', () => {
    const body = '{"entry":[{"id":"1","changes":[]}],"note":"grüße"}';
    const expected = createHmac('sha256', 'app-secret').update(Buffer.from(body, 'utf8')).digest('hex');
    expect(hubSignature256('app-secret', body)).toBe(`sha256=${expected}`);
  });
});
