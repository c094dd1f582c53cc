import { isValidVariableName } from '../template/message-template';
import { findControlCharacter, LINE_BREAKS_AND_TABS } from '../text/text-rules';
import type { AddressNormalizer } from './audience-address';
import { type AudienceLayout, MAX_VARIABLE_COLUMNS, MAX_VARIABLE_VALUE_LENGTH } from './audience-header';

/** A recipient's variables; null-prototype so a column named `__proto__` is just a key. */
export type RecipientVariables = Record<string, string>;

/** Why a variable's value cannot be sent (too long, a control character), or undefined. */
function valueProblem(name: string, value: string): string | undefined {
  if (value.length > MAX_VARIABLE_VALUE_LENGTH) {
    return `variable ${name} is longer than ${MAX_VARIABLE_VALUE_LENGTH} characters`;
  }
  const control = findControlCharacter(value, LINE_BREAKS_AND_TABS);
  return control === undefined ? undefined : `variable ${name} contains the control character ${control}`;
}

export type RowVerdict =
  | { readonly ok: true; readonly address: string; readonly variables: RecipientVariables | null }
  | { readonly ok: false; readonly reason: string };

/** A row whose cells are all blank (an empty line, `,,,`, spaces): skipped, neither read nor rejected. */
export function isBlankRow(cells: readonly string[]): boolean {
  for (const cell of cells) if (cell.trim() !== '') return false;
  return true;
}

/**
 * One data row of an audience file against its header layout. Cells are trimmed (spreadsheet
 * exports pad them); every non-address column becomes a variable, empty ones included.
 */
export function validateAudienceRow(
  cells: readonly string[],
  layout: AudienceLayout,
  normalize: AddressNormalizer,
): RowVerdict {
  if (cells.length !== layout.columnCount) {
    return { ok: false, reason: `expected ${layout.columnCount} cells, found ${cells.length}` };
  }
  const address = normalize(cells[layout.addressIndex] as string);
  if (!address.ok) return address;
  if (layout.variableColumns.length === 0) return { ok: true, address: address.address, variables: null };
  const variables: RecipientVariables = Object.create(null) as RecipientVariables;
  for (const column of layout.variableColumns) {
    const value = (cells[column.index] as string).trim();
    const problem = valueProblem(column.name, value);
    if (problem !== undefined) return { ok: false, reason: problem };
    if (column.required && value === '') return { ok: false, reason: `variable ${column.name} is empty` };
    variables[column.name] = value;
  }
  return { ok: true, address: address.address, variables };
}

/** A recipient given as data (inline list, send request) rather than as a file row. */
export interface RecipientInput {
  readonly address: string;
  readonly variables?: Readonly<Record<string, string>> | null;
}

/**
 * One inline recipient: its own variables must be valid names within the contract's bounds, and
 * every variable the template uses must be present and non-blank. Values are kept as given.
 */
export function validateRecipient(
  recipient: RecipientInput,
  requiredVariables: readonly string[],
  normalize: AddressNormalizer,
): RowVerdict {
  const address = normalize(recipient.address);
  if (!address.ok) return address;
  const given = recipient.variables ?? undefined;
  const entries = given === undefined ? [] : Object.entries(given);
  if (entries.length > MAX_VARIABLE_COLUMNS) {
    return { ok: false, reason: `${entries.length} variables; at most ${MAX_VARIABLE_COLUMNS} are allowed` };
  }
  let variables: RecipientVariables | null = null;
  for (const [name, value] of entries) {
    if (!isValidVariableName(name))
      return { ok: false, reason: `variable name ${JSON.stringify(name.slice(0, 64))} is not valid` };
    if (typeof value !== 'string') return { ok: false, reason: `variable ${name} is not a string` };
    const problem = valueProblem(name, value);
    if (problem !== undefined) return { ok: false, reason: problem };
    variables ??= Object.create(null) as RecipientVariables;
    variables[name] = value;
  }
  for (const name of requiredVariables) {
    const value = variables === null || !Object.hasOwn(variables, name) ? undefined : variables[name];
    if (value === undefined) return { ok: false, reason: `variable ${name} is missing` };
    if (value.trim() === '') return { ok: false, reason: `variable ${name} is empty` };
  }
  return { ok: true, address: address.address, variables };
}
