import type { ApiError } from './cli.errors';

export type Cell = string | number | boolean | null | undefined;

const NUMERIC = /^-?\d+(\.\d+)?%?$/;

function cellText(cell: Cell): string {
  if (cell === null || cell === undefined || cell === '') return '-';
  return String(cell);
}

/**
 * A plain-text table: a header row, a rule, one line per row; columns as wide as their widest
 * cell, numbers right-aligned. An empty table says "(none)".
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  if (rows.length === 0) return '(none)\n';
  const text = rows.map((row) => headers.map((_, i) => cellText(row[i])));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => text.every((r) => NUMERIC.test(r[i] ?? '') || r[i] === '-'));
  const line = (cells: readonly string[], header: boolean): string =>
    cells
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return !header && numeric[i] ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [
    line(headers, true),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...text.map((r) => line(r, false)),
    '',
  ].join('\n');
}

/** `key  value` lines with the keys aligned. */
export function formatFields(fields: readonly (readonly [string, Cell])[]): string {
  const width = Math.max(0, ...fields.map(([key]) => key.length));
  return fields.map(([key, value]) => `${`${key}:`.padEnd(width + 1)}  ${cellText(value)}\n`).join('');
}

/** `[#########-----------]  45%  450/1000`; a total of 0 shows an empty bar at 0%. */
export function progressBar(done: number, total: number, width = 30): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const filled = Math.round(ratio * width);
  const percent = `${Math.floor(ratio * 100)}%`.padStart(4);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}  ${done}/${total}`;
}

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The human text of an API refusal: code, message, then each field and why. */
export function formatApiError(error: ApiError): string {
  const lines = [`error: ${error.code}: ${error.message} (HTTP ${error.status})`];
  for (const field of error.fields) lines.push(`  ${field.field}: ${field.reason}`);
  if (error.details !== undefined) lines.push(`  details: ${JSON.stringify(error.details)}`);
  return `${lines.join('\n')}\n`;
}

/** The machine form of an error, the shape the services use: `{error: {code, message, ...}}`. */
export function errorJson(
  code: string,
  message: string,
  extra: { status?: number; fields?: readonly { field: string; reason: string }[] } = {},
): string {
  return `${JSON.stringify({ error: { code, message, ...extra } })}\n`;
}

/** ISO time as `2026-01-31 09:00:00Z`, or '-' when absent. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '-';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
