import type { Channel } from '@ums/contracts';
import { AudienceErrorCode } from '@ums/contracts';
import { isValidVariableName } from '../template/message-template';
import { AddressKind, addressKindOf } from './audience-address';

/** Header names (case-insensitive, trimmed) that hold the address, by address kind. */
export const ADDRESS_COLUMNS: Readonly<Record<AddressKind, readonly string[]>> = {
  [AddressKind.Phone]: ['phone', 'phone_number', 'mobile', 'msisdn', 'address'],
  [AddressKind.Email]: ['email', 'email_address', 'address'],
};

/** The same bounds the send-request contract puts on a recipient's variables. */
export const MAX_VARIABLE_COLUMNS = 50;
export const MAX_VARIABLE_VALUE_LENGTH = 1024;

export interface VariableColumn {
  readonly name: string;
  readonly index: number;
  /** The template uses it, so an empty value rejects the row. */
  readonly required: boolean;
}

/** Where things are in each row of an audience file. */
export interface AudienceLayout {
  readonly columnCount: number;
  readonly addressIndex: number;
  /** Every column but the address one, in file order. */
  readonly variableColumns: readonly VariableColumn[];
  /** Variables the campaign's template uses; a row with one of them empty is rejected. */
  readonly requiredVariables: readonly string[];
}

export type HeaderAnalysis =
  | { readonly ok: true; readonly layout: AudienceLayout }
  | {
      readonly ok: false;
      readonly code: AudienceErrorCode.HeaderInvalid;
      readonly problems: readonly string[];
    }
  | {
      readonly ok: false;
      readonly code: AudienceErrorCode.ColumnsMissing;
      readonly missing: readonly string[];
    };

const NAME_RULE = 'a letter or _ then letters, digits, _ . or -, at most 64 characters';

/**
 * Reads the header row of an audience file: exactly one address column for the channel, every
 * other column a distinct, valid variable name, and every variable of the template present.
 * Reports all header problems at once; missing template columns are checked only for a sound header.
 */
export function analyzeAudienceHeader(
  cells: readonly string[],
  channel: Channel,
  templateVariables: readonly string[],
): HeaderAnalysis {
  const addressNames = ADDRESS_COLUMNS[addressKindOf(channel)];
  const problems: string[] = [];
  const addressHits: { name: string; index: number }[] = [];
  const variableColumns: { name: string; index: number }[] = [];
  const firstByLowerName = new Map<string, string>();

  cells.forEach((cell, index) => {
    const name = cell.trim();
    if (name === '') {
      problems.push(`column ${index + 1} has no name`);
      return;
    }
    const lower = name.toLowerCase();
    const earlier = firstByLowerName.get(lower);
    if (earlier !== undefined) {
      problems.push(
        earlier === name
          ? `column "${name}" appears more than once`
          : `columns "${earlier}" and "${name}" differ only in case`,
      );
      return;
    }
    firstByLowerName.set(lower, name);
    if (addressNames.includes(lower)) {
      addressHits.push({ name, index });
    } else if (!isValidVariableName(name)) {
      problems.push(`column "${name}" is not a valid variable name (${NAME_RULE})`);
    } else {
      variableColumns.push({ name, index });
    }
  });

  if (addressHits.length === 0) {
    problems.push(`no address column: expected one of ${addressNames.join(', ')}`);
  } else if (addressHits.length > 1) {
    problems.push(`more than one address column: ${addressHits.map((hit) => hit.name).join(', ')}`);
  }
  if (variableColumns.length > MAX_VARIABLE_COLUMNS) {
    problems.push(`${variableColumns.length} variable columns; at most ${MAX_VARIABLE_COLUMNS} are allowed`);
  }
  const address = addressHits[0];
  if (problems.length > 0 || address === undefined) {
    return { ok: false, code: AudienceErrorCode.HeaderInvalid, problems };
  }

  const present = new Set(variableColumns.map((column) => column.name));
  const missing = templateVariables.filter((name) => !present.has(name));
  if (missing.length > 0) return { ok: false, code: AudienceErrorCode.ColumnsMissing, missing };

  return {
    ok: true,
    layout: {
      columnCount: cells.length,
      addressIndex: address.index,
      variableColumns: variableColumns.map((column) => ({
        ...column,
        required: templateVariables.includes(column.name),
      })),
      requiredVariables: [...templateVariables],
    },
  };
}
