import type { ContactListSegment } from '@ums/domain';

/** A piece of a WHERE clause with its bound values, in placeholder order. */
export interface SqlCondition {
  readonly sql: string;
  readonly params: readonly string[];
}

/** The reason a member lacks a variable the template uses, as a CASE over the variables. */
export interface SqlReason {
  readonly sql: string;
  readonly params: readonly string[];
}

const TRUE: SqlCondition = { sql: '1 = 1', params: [] };

/**
 * The JSON path of one variable, bound as a parameter (never part of the statement): `$."city"`.
 * Names reaching here are checked (segment attributes: letters, digits, _; template variables: see
 * isValidVariableName), so they hold no quote or backslash.
 */
export function variablePath(name: string): string {
  if (/["\\]/.test(name))
    throw new Error(`A variable name with a quote or backslash: ${JSON.stringify(name)}`);
  return `$."${name}"`;
}

/** The variable's string value (NULL when absent); JSON_UNQUOTE/JSON_EXTRACT read the same on MariaDB and MySQL 8. */
function valueOf(column: string): string {
  return `JSON_UNQUOTE(JSON_EXTRACT(${column}, ?))`;
}

/**
 * The members a segment takes: each attribute's value equals one of its values (exactly, as stored).
 * Every name and value is a bound parameter. An empty segment is every member.
 */
export function segmentCondition(segment: ContactListSegment, column = 'm.variables'): SqlCondition {
  if (segment.attributes.length === 0) return TRUE;
  const parts: string[] = [];
  const params: string[] = [];
  for (const attribute of segment.attributes) {
    const slots = attribute.values.map(() => '?').join(', ');
    parts.push(`${valueOf(column)} IN (${slots})`);
    params.push(variablePath(attribute.name), ...attribute.values);
  }
  return { sql: parts.join(' AND '), params };
}

/** The members whose variables give every required one a non-blank value (the rows a campaign can send to). */
export function requiredVariablesCondition(names: readonly string[], column = 'm.variables'): SqlCondition {
  if (names.length === 0) return TRUE;
  return {
    sql: names.map(() => `COALESCE(TRIM(${valueOf(column)}), '') <> ''`).join(' AND '),
    params: names.map(variablePath),
  };
}

/**
 * Why a member fails requiredVariablesCondition: the first variable missing or blank, as an audience
 * import words it (`variable first_name is missing`, `... is empty`). Only for rows that fail it.
 */
export function missingVariableReason(names: readonly string[], column = 'm.variables'): SqlReason {
  const whens: string[] = [];
  const params: string[] = [];
  for (const name of names) {
    const path = variablePath(name);
    whens.push(`WHEN ${valueOf(column)} IS NULL THEN ?`, `WHEN TRIM(${valueOf(column)}) = '' THEN ?`);
    params.push(path, `variable ${name} is missing`, path, `variable ${name} is empty`);
  }
  return { sql: `CASE ${whens.join(' ')} ELSE '' END`, params };
}
