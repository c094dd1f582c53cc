import { parseContactListSegment } from '@ums/domain';
import {
  missingVariableReason,
  requiredVariablesCondition,
  segmentCondition,
  variablePath,
} from './contact-list-sql';

function segmentOf(attributes: Record<string, unknown>) {
  const parsed = parseContactListSegment({ attributes });
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.segment;
}

describe('segmentCondition', () => {
  it('is every member without attributes', () => {
    expect(segmentCondition(segmentOf({}))).toEqual({ sql: '1 = 1', params: [] });
  });

  it('binds every path and value, one IN per attribute, joined by AND', () => {
    expect(segmentCondition(segmentOf({ city: 'Berlin', plan: ['gold', 'silver'] }))).toEqual({
      sql:
        'JSON_UNQUOTE(JSON_EXTRACT(m.variables, ?)) IN (?) AND ' +
        'JSON_UNQUOTE(JSON_EXTRACT(m.variables, ?)) IN (?, ?)',
      params: ['$."city"', 'Berlin', '$."plan"', 'gold', 'silver'],
    });
  });

  it('never puts a value into the statement text', () => {
    const hostile = "x') OR 1=1 -- ";
    const condition = segmentCondition(segmentOf({ city: [hostile, 'a"b'] }));
    expect(condition.sql).not.toContain(hostile);
    expect(condition.sql).not.toContain('a"b');
    expect(condition.params).toEqual(['$."city"', hostile, 'a"b']);
    expect(condition.sql.split('?')).toHaveLength(condition.params.length + 1);
  });
});

describe('requiredVariablesCondition and missingVariableReason', () => {
  it('asks nothing of a template without variables', () => {
    expect(requiredVariablesCondition([])).toEqual({ sql: '1 = 1', params: [] });
  });

  it('requires a non-blank value of each variable, paths bound', () => {
    const condition = requiredVariablesCondition(['first_name', 'order.id']);
    expect(condition.sql).toBe(
      "COALESCE(TRIM(JSON_UNQUOTE(JSON_EXTRACT(m.variables, ?))), '') <> '' AND " +
        "COALESCE(TRIM(JSON_UNQUOTE(JSON_EXTRACT(m.variables, ?))), '') <> ''",
    );
    expect(condition.params).toEqual(['$."first_name"', '$."order.id"']);
  });

  it('words the first missing or empty variable as an audience import does', () => {
    const reason = missingVariableReason(['first_name']);
    expect(reason.sql).toBe(
      'CASE WHEN JSON_UNQUOTE(JSON_EXTRACT(m.variables, ?)) IS NULL THEN ? ' +
        "WHEN TRIM(JSON_UNQUOTE(JSON_EXTRACT(m.variables, ?))) = '' THEN ? ELSE '' END",
    );
    expect(reason.params).toEqual([
      '$."first_name"',
      'variable first_name is missing',
      '$."first_name"',
      'variable first_name is empty',
    ]);
    expect(reason.sql.split('?')).toHaveLength(reason.params.length + 1);
  });

  it('refuses a name that could leave its quotes', () => {
    expect(() => variablePath('a"b')).toThrow('quote or backslash');
    expect(() => requiredVariablesCondition(['a\\b'])).toThrow('quote or backslash');
  });
});
