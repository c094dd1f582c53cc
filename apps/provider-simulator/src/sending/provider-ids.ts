import { randomBytes } from 'node:crypto';

// A random prefix per process and a counter: unique across restarts, and cheap on the hot path.
const PREFIX = randomBytes(6).toString('hex');
let sequence = 0;

const next = (): number => ++sequence;
const hex20 = (n: number): string => n.toString(16).padStart(20, '0');

/** Ids in each provider's style, for the sends the simulator accepts. */
export const ProviderIds = {
  /** WhatsApp Cloud message id. */
  wamid: (): string => `wamid.SIM${PREFIX}${next().toString(36)}`,
  /** Twilio Message SID: "SM" and 32 hex digits. */
  twilioSid: (): string => `SM${PREFIX}${hex20(next())}`,
  /** SES MessageId. */
  sesMessageId: (): string => `0100${PREFIX}-${hex20(next())}-000000`,
  /** Mitto message id: 32 hex digits. */
  mittoId: (): string => `${PREFIX}${hex20(next())}`,
  /** Native simulator id. */
  simId: (): string => `sim-${PREFIX}-${next().toString(36)}`,
  /** Meta fbtrace_id / AWS request id stand-in. */
  traceId: (): string => `SIM${PREFIX}${next().toString(36)}`,
} as const;
