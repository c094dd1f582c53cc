import { MessageStatus } from '@ums/contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ListRunMessagesDto } from './list-run-messages.dto';

/** The query as the global ValidationPipe converts and checks it. */
function parseQuery(query: Record<string, unknown>): { dto: ListRunMessagesDto; fields: string[] } {
  const dto = plainToInstance(ListRunMessagesDto, query);
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true });
  return { dto, fields: errors.map((error) => error.property) };
}

describe('run messages query', () => {
  it('defaults to the first page of 100, unfiltered', () => {
    const { dto, fields } = parseQuery({});
    expect(fields).toEqual([]);
    expect(dto).toMatchObject({ limit: 100 });
    expect(dto.state).toBeUndefined();
    expect(dto.after).toBeUndefined();
  });

  it('reads states as a comma list or repeated parameters, without duplicates', () => {
    expect(parseQuery({ state: 'FAILED, UNKNOWN,FAILED' }).dto.state).toEqual([
      MessageStatus.Failed,
      MessageStatus.Unknown,
    ]);
    expect(parseQuery({ state: ['FAILED', 'READ,SENT'] }).dto.state).toEqual(['FAILED', 'READ', 'SENT']);
  });

  it('converts limit and keeps the cursor as a decimal string', () => {
    const { dto, fields } = parseQuery({ limit: '1000', after: '9007199254740993' });
    expect(fields).toEqual([]);
    expect(dto).toMatchObject({ limit: 1000, after: '9007199254740993' });
  });

  it.each([
    [{ state: 'BOGUS' }, 'state'],
    [{ state: 'FAILED,bogus' }, 'state'],
    [{ state: ',' }, 'state'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ after: 'abc' }, 'after'],
    [{ after: '-1' }, 'after'],
    [{ recipient: '' }, 'recipient'],
    [{ offset: '10' }, 'offset'],
  ])('refuses %j', (query, field) => {
    expect(parseQuery(query).fields).toContain(field);
  });
});
