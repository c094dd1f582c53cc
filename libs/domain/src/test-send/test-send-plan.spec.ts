import { Channel } from '@ums/contracts';
import { addressNormalizerFor } from '../audience/audience-address';
import { compileTemplate, type CompiledTemplate } from '../template/message-template';
import { MAX_TEST_SEND_RECIPIENTS, planTestSend } from './test-send-plan';

function compiled(text: string): CompiledTemplate {
  const result = compileTemplate({ text });
  if (!result.ok) throw new Error(result.reason);
  return result.template;
}

const SMS_DE = addressNormalizerFor(Channel.Sms, 'DE');
const HELLO = compiled('Hello {{name}}, code {{code}}');

describe('planTestSend', () => {
  it('renders each recipient with the defaults overlaid by its own variables, in request order', () => {
    const plan = planTestSend(
      {
        recipients: [
          { to: '0151 23456789', variables: { name: 'Ada' } },
          { to: '+4915123456790', variables: { name: 'Grace', code: '9' } },
        ],
        variables: { code: '1' },
      },
      HELLO,
      SMS_DE,
    );
    expect(plan).toEqual({
      ok: true,
      messages: [
        {
          position: 0,
          address: '+4915123456789',
          variables: { name: 'Ada', code: '1' },
          content: { text: 'Hello Ada, code 1' },
        },
        {
          position: 1,
          address: '+4915123456790',
          variables: { name: 'Grace', code: '9' },
          content: { text: 'Hello Grace, code 9' },
        },
      ],
    });
  });

  it(`takes 1 to ${MAX_TEST_SEND_RECIPIENTS} recipients and names the field otherwise`, () => {
    const many = Array.from({ length: MAX_TEST_SEND_RECIPIENTS + 1 }, (_, i) => ({
      to: `+49151234567${String(10 + i)}`,
    }));
    for (const recipients of [[], many]) {
      const plan = planTestSend({ recipients, variables: { name: 'x', code: 'y' } }, HELLO, SMS_DE);
      expect(plan).toEqual({
        ok: false,
        problems: [
          {
            kind: 'invalid',
            field: 'recipients',
            reason: `must hold 1 to ${MAX_TEST_SEND_RECIPIENTS} recipients, got ${recipients.length}`,
          },
        ],
      });
    }
    expect(
      planTestSend({ recipients: many.slice(1), variables: { name: 'x', code: 'y' } }, HELLO, SMS_DE).ok,
    ).toBe(true);
  });

  it('refuses an address the campaign channel cannot send to, and one named twice, at its index', () => {
    const plan = planTestSend(
      {
        recipients: [{ to: '+4915123456789' }, { to: '12' }, { to: '0151 23456789' }, { to: 'a@b.org' }],
        variables: { name: 'x', code: 'y' },
      },
      HELLO,
      SMS_DE,
    );
    expect(plan.ok).toBe(false);
    expect(plan.ok ? [] : plan.problems.map((p) => [p.kind, p.field])).toEqual([
      ['invalid', 'recipients[1].to'],
      ['invalid', 'recipients[2].to'],
      ['invalid', 'recipients[3].to'],
    ]);
    expect(plan.ok ? '' : plan.problems[1]?.reason).toBe('names +4915123456789 again (as recipients[0].to)');
  });

  it('validates e-mail recipients as an e-mail campaign audience does', () => {
    const email = addressNormalizerFor(Channel.Email);
    const plan = planTestSend(
      { recipients: [{ to: 'Ada@Example.ORG' }, { to: '+4915123456789' }] },
      compiled('Hi'),
      email,
    );
    expect(plan.ok ? [] : plan.problems.map((p) => p.field)).toEqual(['recipients[1].to']);
    const ok = planTestSend({ recipients: [{ to: 'Ada@Example.ORG' }] }, compiled('Hi'), email);
    expect(ok.ok && ok.messages[0]?.address).toBe('Ada@example.org');
  });

  it('names a missing variable and the recipient lacking it; a blank one is refused too', () => {
    const plan = planTestSend(
      {
        recipients: [
          { to: '+4915123456789', variables: { name: 'Ada' } },
          { to: '+4915123456790', variables: { name: ' ', code: '1' } },
        ],
      },
      HELLO,
      SMS_DE,
    );
    expect(plan).toEqual({
      ok: false,
      problems: [
        { kind: 'missing', field: 'recipients[0].variables', reason: 'lacks code' },
        { kind: 'invalid', field: 'recipients[1].variables', reason: 'name must not be blank' },
      ],
    });
  });

  it('refuses bad variable names and values in the defaults and in a recipient, by field', () => {
    const plan = planTestSend(
      {
        recipients: [{ to: '+4915123456789', variables: { 'bad name': 'x', name: 'a', code: 'b' } }],
        variables: { code: 'with\u0000nul' },
      },
      HELLO,
      SMS_DE,
    );
    expect(plan.ok ? [] : plan.problems.map((p) => [p.kind, p.field])).toEqual([
      ['invalid', 'variables'],
      ['invalid', 'recipients[0].variables'],
    ]);
  });

  it('takes a variable called __proto__ as a plain variable', () => {
    const plan = planTestSend(
      { recipients: [{ to: '+4915123456789', variables: { ['__proto__']: 'p' } }] },
      compiled('x {{__proto__}}'),
      SMS_DE,
    );
    expect(plan.ok && plan.messages[0]?.content).toEqual({ text: 'x p' });
  });
});
