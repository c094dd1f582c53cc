/** An HTTP answer with its JSON body. */
export interface JsonAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One JSON request to a service under test, as its API clients send it. */
export async function jsonCall(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
