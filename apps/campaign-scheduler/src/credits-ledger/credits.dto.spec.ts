import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  CreditChannelParamsDto,
  ListCreditLedgerDto,
  SetCreditPriceDto,
  SetCreditQuotasDto,
  TopUpCreditsDto,
} from './credits.dto';

/** The input as the global ValidationPipe converts and checks it: the fields refused. */
function refused<T extends object>(cls: ClassConstructor<T>, input: Record<string, unknown>): string[] {
  const dto = plainToInstance(cls, input);
  return validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }).map((error) => error.property);
}

describe('credits DTOs', () => {
  it('takes a top-up of a positive integer with a reference', () => {
    expect(refused(TopUpCreditsDto, { channel: 'sms', amount: 1, reference: 'inv-1' })).toEqual([]);
    expect(refused(TopUpCreditsDto, { channel: 'email', amount: 1e12, reference: 'r'.repeat(128) })).toEqual(
      [],
    );
  });

  it.each([
    [{ channel: 'sms', amount: 0, reference: 'x' }, 'amount'],
    [{ channel: 'sms', amount: -3, reference: 'x' }, 'amount'],
    [{ channel: 'sms', amount: 2.5, reference: 'x' }, 'amount'],
    [{ channel: 'sms', amount: '10', reference: 'x' }, 'amount'],
    [{ channel: 'sms', amount: 1e12 + 1, reference: 'x' }, 'amount'],
    [{ channel: 'fax', amount: 1, reference: 'x' }, 'channel'],
    [{ channel: 'sms', amount: 1 }, 'reference'],
    [{ channel: 'sms', amount: 1, reference: '' }, 'reference'],
    [{ channel: 'sms', amount: 1, reference: 'has space' }, 'reference'],
    [{ channel: 'sms', amount: 1, reference: 'r'.repeat(129) }, 'reference'],
    [{ channel: 'sms', amount: 1, reference: 'x', tenantId: 'other' }, 'tenantId'],
  ])('refuses the top-up %j, naming %s', (input, field) => {
    expect(refused(TopUpCreditsDto, input)).toEqual([field]);
  });

  it('takes a price of 0 or more, or null (not metered); refuses it left out', () => {
    expect(refused(SetCreditPriceDto, { price: 0 })).toEqual([]);
    expect(refused(SetCreditPriceDto, { price: 1_000_000 })).toEqual([]);
    expect(refused(SetCreditPriceDto, { price: null })).toEqual([]);
    for (const price of [-1, 1.5, '3', 1_000_001, undefined]) {
      expect(refused(SetCreditPriceDto, { price })).toEqual(['price']);
    }
  });

  it('takes each cap as an integer of 1 or more, null, or left out', () => {
    expect(refused(SetCreditQuotasDto, {})).toEqual([]);
    expect(refused(SetCreditQuotasDto, { dailyLimit: null, monthlyLimit: 30 })).toEqual([]);
    expect(refused(SetCreditQuotasDto, { dailyLimit: 0 })).toEqual(['dailyLimit']);
    expect(refused(SetCreditQuotasDto, { monthlyLimit: 'lots' })).toEqual(['monthlyLimit']);
  });

  it('reads the channel of a path and the ledger query', () => {
    expect(refused(CreditChannelParamsDto, { channel: 'whatsapp' })).toEqual([]);
    expect(refused(CreditChannelParamsDto, { channel: 'SMS' })).toEqual(['channel']);
    const query = plainToInstance(ListCreditLedgerDto, { limit: '20', before: '9007199254740993' });
    expect(validateSync(query)).toEqual([]);
    expect(query).toMatchObject({ limit: 20, before: '9007199254740993' });
    expect(plainToInstance(ListCreditLedgerDto, {}).limit).toBe(100);
    expect(refused(ListCreditLedgerDto, { kind: 'GIFT' })).toEqual(['kind']);
    expect(refused(ListCreditLedgerDto, { before: 'abc' })).toEqual(['before']);
    expect(refused(ListCreditLedgerDto, { limit: '501' })).toEqual(['limit']);
  });
});
