import { bindWhatsAppBody, twilioAccountSid } from './account-binding';

const change = (phoneNumberId: unknown, field = 'messages'): Record<string, unknown> => ({
  field,
  value: {
    messaging_product: 'whatsapp',
    ...(phoneNumberId === undefined ? {} : { metadata: { phone_number_id: phoneNumberId } }),
    statuses: [],
  },
});

const webhook = (...changes: unknown[]): Record<string, unknown> => ({
  object: 'whatsapp_business_account',
  entry: [{ id: 'WABA-1', changes }],
});

describe('bindWhatsAppBody', () => {
  it('returns the body itself when every change is the credential number', () => {
    const body = webhook(change('1065'), change(1065), change('9', 'account_update'));
    expect(bindWhatsAppBody(body, '1065')).toEqual({
      body,
      foreign: 0,
      foreignPhoneNumberIds: [],
      issues: [],
    });
    expect(bindWhatsAppBody(body, '1065').body).toBe(body);
  });

  it('takes out the messages changes of other numbers and names them', () => {
    const body = webhook(change('1065'), change('2001'), change(1065), change('2001'), change('3001'));
    const bound = bindWhatsAppBody(body, '1065');
    expect(bound).toMatchObject({ foreign: 3, foreignPhoneNumberIds: ['2001', '3001'], issues: [] });
    expect(bound.body).toEqual(webhook(change('1065'), change(1065)));
    // The body given is left as it was.
    expect((body['entry'] as { changes: unknown[] }[])[0]?.changes).toHaveLength(5);
  });

  it('names each messages change that names no number as an issue', () => {
    const body = webhook(change('1065'), change(undefined), change(''), change(null));
    expect(bindWhatsAppBody(body, '1065')).toEqual({
      body,
      foreign: 0,
      foreignPhoneNumberIds: [],
      issues: [1, 2, 3].map((c) => ({
        field: `entry[0].changes[${c}].value.metadata.phone_number_id`,
        reason: 'must name the business phone number',
      })),
    });
  });

  it('leaves malformed bodies and changes to the parser', () => {
    for (const body of [
      null,
      'x',
      { entry: 'x' },
      { entry: [1, { changes: 'x' }] },
      webhook(7, { field: 'messages', value: 3 }),
    ]) {
      expect(bindWhatsAppBody(body, '1065')).toEqual({
        body,
        foreign: 0,
        foreignPhoneNumberIds: [],
        issues: [],
      });
    }
  });
});

describe('twilioAccountSid', () => {
  it('reads the first AccountSid of a form', () => {
    expect(
      twilioAccountSid([
        ['To', '+1'],
        ['AccountSid', 'AC1'],
        ['AccountSid', 'AC2'],
      ]),
    ).toBe('AC1');
    expect(twilioAccountSid([['To', '+1']])).toBeUndefined();
  });
});
