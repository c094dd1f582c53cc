/** An engine with TLS and authentication started on loopback for tests and the `--secure` demo. */
export interface SecureEngine {
  /** The variables a client needs (addresses, TLS files, user and password). */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}
