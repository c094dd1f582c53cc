/**
 * Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`
 * (or at once when `abortIf` names a reason, e.g. the process under test died).
 */
export async function waitUntil<T>(
  description: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  {
    timeoutMs = 30_000,
    intervalMs = 100,
    abortIf,
  }: { timeoutMs?: number; intervalMs?: number; abortIf?: () => string | undefined } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error: unknown) {
      lastError = error;
    }
    const abort = abortIf?.();
    if (abort !== undefined) throw new Error(`Gave up waiting for ${description}: ${abort}`);
    if (Date.now() > deadline) {
      // Not instanceof Error: errors from another realm (Jest's VM vs Node's fetch) fail that test.
      const message =
        typeof lastError === 'object' && lastError !== null && 'message' in lastError
          ? String(lastError.message)
          : undefined;
      const cause = message !== undefined ? ` (last error: ${message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${description}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
