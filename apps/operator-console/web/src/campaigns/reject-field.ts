/**
 * The field a rejected row's reason is about, for the "Rejected rows" table: the variable it names, the
 * address (phone number or email), the row as a whole (cell count), or '' when the reason names none.
 */
export function rejectField(reason: string): string {
  const variable = /^variable (\S+)/.exec(reason);
  if (variable?.[1] !== undefined) return variable[1];
  const lower = reason.toLowerCase();
  if (lower.includes('phone')) return 'phone';
  if (lower.includes('email') || lower.includes('e-mail')) return 'email';
  if (lower.includes('duplicate') || lower.includes('already in the audience')) return 'address';
  if (/cells, found/.test(lower)) return 'row';
  return '';
}
