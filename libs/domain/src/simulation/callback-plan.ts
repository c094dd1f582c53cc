/** The delivery statuses a simulated provider reports back. */
export type SimulatedStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** Probabilities (0..1) that shape the status callbacks of one accepted send. */
export interface CallbackRates {
  /** A send that fails after it was sent (instead of being delivered). */
  readonly failedRate: number;
  /** A send that is not failed is delivered with this probability. */
  readonly deliveredRate: number;
  /** A delivered send is read with this probability (channels with read receipts only). */
  readonly readRate: number;
  /** One of the statuses is reported a second time, after the original. */
  readonly duplicateRate: number;
  /** The last two statuses arrive swapped (read before delivered, or delivered before sent). */
  readonly outOfOrderRate: number;
}

/** What the provider reports for a channel: Mitto reports no `sent`; only chat apps report `read`. */
export interface StatusCapabilities {
  readonly sent: boolean;
  readonly read: boolean;
}

/** One planned callback: its status and its step (sent 1, delivered 2, read 3; x the delay). */
export interface PlannedCallback {
  readonly status: SimulatedStatus;
  readonly step: number;
}

/**
 * The callbacks one accepted send produces, in the order they are to be sent. Draws from
 * `random` (uniform in [0, 1)) in a fixed order, so a seeded generator gives a fixed plan.
 */
export function planCallbacks(
  rates: CallbackRates,
  capabilities: StatusCapabilities,
  random: () => number,
): PlannedCallback[] {
  const plan: { status: SimulatedStatus; step: number }[] = [];
  if (capabilities.sent) plan.push({ status: 'sent', step: 1 });
  if (random() < rates.failedRate) {
    plan.push({ status: 'failed', step: 2 });
  } else if (random() < rates.deliveredRate) {
    plan.push({ status: 'delivered', step: 2 });
    if (capabilities.read && random() < rates.readRate) plan.push({ status: 'read', step: 3 });
  }
  if (plan.length >= 2 && random() < rates.outOfOrderRate) {
    const last = plan[plan.length - 1];
    const before = plan[plan.length - 2];
    if (last !== undefined && before !== undefined) {
      plan[plan.length - 1] = { status: before.status, step: last.step };
      plan[plan.length - 2] = { status: last.status, step: before.step };
    }
  }
  if (plan.length > 0 && random() < rates.duplicateRate) {
    const original = plan[Math.min(plan.length - 1, Math.floor(random() * plan.length))];
    if (original !== undefined) plan.push({ status: original.status, step: original.step + 1 });
  }
  // Stable sort: a duplicate sharing a step with a later status still follows its original.
  return plan.sort((a, b) => a.step - b.step);
}
