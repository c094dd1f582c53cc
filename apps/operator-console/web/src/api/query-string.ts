/** A query parameter's value: arrays repeat the name (`state=A&state=B`); empty values are left out. */
export type QueryValue = string | number | boolean | readonly string[] | null | undefined;

export type Query = Readonly<Record<string, QueryValue>>;

/** `?a=1&b=x` from the set values (none: the empty string). */
export function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly string[]) if (item !== '') params.append(name, item);
    } else {
      params.append(name, String(value));
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
