/**
 * The one text form of a failure where a row or header has a single text column for it (a delivery's
 * or subscriber's last error, an audience import's error, a run's failure reason, the retry header):
 * `CODE: text`. Where a code has its own column (dead letters, messages), code and text stay apart.
 * `code` is one of ours (ErrorCode) or, for a failure of a library or a peer, its own code.
 */
export function describeFailure(code: string, text: string): string {
  return `${code}: ${text}`;
}
