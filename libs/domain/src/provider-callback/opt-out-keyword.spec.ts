import { Channel } from '@ums/contracts';
import { isOptOutText, optOutAddress } from './opt-out-keyword';

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
