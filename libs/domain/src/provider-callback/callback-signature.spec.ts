import { createHmac } from 'node:crypto';
import { constantTimeEquals, hubSignatureMatches, twilioSignatureMatches } from './callback-signature';

describe('twilioSignatureMatches', () => {
  // Twilio's worked examples ("Validating signatures from Twilio", twilio.com/docs/usage/security).
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = (caller: string): [string, string][] => [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', caller],
    ['Digits', '1234'],
    ['From', caller],
    ['To', '+18005551212'],
  ];

  it.each([
    ['+14158675310', 'GvWf1cFY/Q7PnoempGyD5oXAezc='],
    ['+12349013030', '0/KCTR6DLpKmkAf8muzZqo1nDgQ='],
  ])("accepts Twilio's documented example (caller %s)", (caller, signature) => {
    expect(twilioSignatureMatches('12345', url, params(caller), signature)).toBe(true);
    // Parameter order on the wire does not matter: Twilio sorts them.
    expect(twilioSignatureMatches('12345', url, params(caller).reverse(), signature)).toBe(true);
  });

  it('refuses another token, URL, parameter value or a missing header', () => {
    const signature = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';
    const good = params('+12349013030');
    expect(twilioSignatureMatches('12346', url, good, signature)).toBe(false);
    expect(twilioSignatureMatches('12345', url.replace('foo=1', 'foo=2'), good, signature)).toBe(false);
    expect(
      twilioSignatureMatches('12345', url, [...good.slice(0, 4), ['To', '+18005551213']], signature),
    ).toBe(false);
    expect(twilioSignatureMatches('12345', url, good, undefined)).toBe(false);
  });

  it('includes every value of a repeated parameter', () => {
    const form: [string, string][] = [
      ['MediaUrl', 'b'],
      ['MediaUrl', 'a'],
      ['Body', 'x'],
    ];
    const expected = createHmac('sha1', 't').update('https://h/cbBodyxMediaUrlbMediaUrla').digest('base64');
    expect(twilioSignatureMatches('t', 'https://h/cb', form, expected)).toBe(true);
  });
});

describe('hubSignatureMatches', () => {
  it('accepts the documented X-Hub-Signature-256 example (the scheme GitHub documents too)', () => {
    const body = Buffer.from('Hello, World!');
    const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(hubSignatureMatches("It's a Secret to Everybody", body, signature)).toBe(true);
    expect(
      hubSignatureMatches(
        "It's a Secret to Everybody",
        body,
        signature.toUpperCase().replace('SHA256', 'sha256'),
      ),
    ).toBe(true);
  });

  it('refuses a tampered body, another secret, a bare hex digest or no header', () => {
    const body = Buffer.from('{"object":"whatsapp_business_account","note":"grüße"}', 'utf8');
    const hex = createHmac('sha256', 'app-secret').update(body).digest('hex');
    expect(hubSignatureMatches('app-secret', body, `sha256=${hex}`)).toBe(true);
    expect(hubSignatureMatches('app-secret', Buffer.concat([body, Buffer.from(' ')]), `sha256=${hex}`)).toBe(
      false,
    );
    expect(hubSignatureMatches('app-secreT', body, `sha256=${hex}`)).toBe(false);
    expect(hubSignatureMatches('app-secret', body, hex)).toBe(false);
    expect(hubSignatureMatches('app-secret', body, undefined)).toBe(false);
  });
});

describe('constantTimeEquals', () => {
  it('compares strings of any lengths', () => {
    expect(constantTimeEquals('token', 'token')).toBe(true);
    expect(constantTimeEquals('token', 'tokeN')).toBe(false);
    expect(constantTimeEquals('token', 'token-longer')).toBe(false);
    expect(constantTimeEquals('', 'x')).toBe(false);
  });
});
