import { MessageStatus } from '@ums/contracts';
import type { EntityManager } from 'typeorm';

/** The runs column that counts messages in each state. */
const COUNTER: Readonly<Partial<Record<MessageStatus, string>>> = {
  [MessageStatus.Pending]: 'pending',
  [MessageStatus.Sending]: 'sending',
  [MessageStatus.Sent]: 'sent',
  [MessageStatus.Delivered]: 'delivered',
  [MessageStatus.Read]: 'read_count',
  [MessageStatus.Failed]: 'failed',
  [MessageStatus.Unknown]: 'unknown',
  [MessageStatus.Skipped]: 'skipped',
};

export interface CounterMove {
  readonly runId: string | null;
  readonly from: MessageStatus;
  readonly to: MessageStatus;
}

/** Moves run counters for a set of transitions: one UPDATE per run. */
export async function moveCounters(manager: EntityManager, moves: readonly CounterMove[]): Promise<void> {
  const perRun = new Map<string, Map<string, number>>();
  for (const move of moves) {
    if (move.runId === null || move.from === move.to) continue;
    const deltas = perRun.get(move.runId) ?? new Map<string, number>();
    const from = COUNTER[move.from];
    const to = COUNTER[move.to];
    if (from !== undefined) deltas.set(from, (deltas.get(from) ?? 0) - 1);
    if (to !== undefined) deltas.set(to, (deltas.get(to) ?? 0) + 1);
    perRun.set(move.runId, deltas);
  }
  for (const [runId, deltas] of perRun) {
    const parts = [...deltas.entries()].filter(([, d]) => d !== 0);
    if (parts.length === 0) continue;
    // Counters are unsigned: signed arithmetic, clamped at zero (a counter never goes below its rows).
    await manager.query(
      `UPDATE runs SET ${parts.map(([c]) => `${c} = GREATEST(CAST(${c} AS SIGNED) + ?, 0)`).join(', ')},
              updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [...parts.map(([, d]) => d), runId],
    );
  }
}
