import { Channel, Provider } from '@ums/contracts';
import { isOptInText, isOptOutText, latestOptChanges, optOutAddress } from './opt-out-keyword';

describe('isOptOutText', () => {
  it.each([
    'STOP',
    'stop',
    ' Stop. ',
    'Stop!',
    'UNSUBSCRIBE',
    'stop all',
    'STOPALL',
    'cancel',
    'End',
    'quit',
    'opt-out',
    'Opt  out',
  ])('%p is an opt-out', (text) => expect(isOptOutText(text)).toBe(true));

  it.each([undefined, '', 'stop sending me the wrong size', 'nonstop', 'Hello', 'STOP?', 'start'])(
    '%p is not',
    (text) => expect(isOptOutText(text)).toBe(false),
  );
});

describe('optOutAddress', () => {
  it('stores addresses as contacts are', () => {
    expect(optOutAddress(Channel.WhatsApp, '4915100000001')).toBe('+4915100000001');
    expect(optOutAddress(Channel.WhatsApp, 'whatsapp:+4915100000001')).toBe('+4915100000001');
    expect(optOutAddress(Channel.Sms, '+4915100000001')).toBe('+4915100000001');
    expect(optOutAddress(Channel.Sms, 'ACME')).toBe('ACME');
    expect(optOutAddress(Channel.Email, ' Ana@Example.COM ')).toBe('ana@example.com');
  });
});

describe('isOptInText', () => {
  it.each(['START', 'start', ' Start. ', 'UNSTOP', 'unstop!'])(
    '%p opts back in on every provider',
    (text) => {
      expect(isOptInText(text, Provider.Twilio, Channel.Sms)).toBe(true);
      expect(isOptInText(text, Provider.WhatsAppCloud, Channel.WhatsApp)).toBe(true);
    },
  );

  it('takes YES as an opt-in on Twilio SMS only, as Twilio does', () => {
    expect(isOptInText('Yes', Provider.Twilio, Channel.Sms)).toBe(true);
    expect(isOptInText('YES', Provider.Twilio, Channel.WhatsApp)).toBe(false);
    expect(isOptInText('yes', Provider.WhatsAppCloud, Channel.WhatsApp)).toBe(false);
  });

  it.each([undefined, '', 'start again please', 'restart', 'STOP', 'Hello', 'START?', 'yes please'])(
    '%p is not',
    (text) => {
      expect(isOptInText(text, Provider.Twilio, Channel.Sms)).toBe(false);
      expect(isOptInText(text, Provider.WhatsAppCloud, Channel.WhatsApp)).toBe(false);
    },
  );
});

describe('latestOptChanges', () => {
  it('keeps the last change per key, in the order of the last changes', () => {
    const result = latestOptChanges([
      { key: 'a', change: 'opt-out', item: 'a1' },
      { key: 'b', change: 'opt-in', item: 'b1' },
      { key: 'a', change: 'opt-in', item: 'a2' },
      { key: 'c', change: 'opt-out', item: 'c1' },
      { key: 'b', change: 'opt-out', item: 'b2' },
    ]);
    expect(result).toEqual({ optOuts: ['c1', 'b2'], optIns: ['a2'] });
  });

  it('gives nothing for nothing', () => {
    expect(latestOptChanges([])).toEqual({ optOuts: [], optIns: [] });
  });
});
