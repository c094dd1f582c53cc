import { RunState } from '@ums/contracts';
import { type RunRow, toRunView } from './run.view';

const row: RunRow = {
  id: '9007199254740993',
  campaign_id: 'cmp_1',
  fire_at: new Date('2030-01-02T03:04:05.006Z'),
  state: RunState.Running,
  lease_epoch: 4,
  lease_owner: 'expander-1',
  attempts: 2,
  failure_reason: null,
  pause_reason: 'CREDITS_EXHAUSTED',
  segments: '240',
  charged: '480',
  checkpoint_cursor: '18446744073709551615',
  batches_published: 7,
  batches_finished: 5,
  checkpoint_at: new Date('2030-01-02T03:05:00.000Z'),
  expanded_at: null,
  started_at: new Date('2030-01-02T03:04:06.000Z'),
  finished_at: null,
  total: '1000',
  pending: '10',
  sending: '20',
  sent: '30',
  delivered: '40',
  read_count: '50',
  failed: '60',
  unknown: '70',
  skipped: '80',
  created_at: new Date('2030-01-01T00:00:00.000Z'),
  updated_at: new Date('2030-01-02T03:05:00.001Z'),
};

describe('toRunView', () => {
  it('keeps BIGINT ids and the cursor as exact strings and reads the BIGINT counters as numbers', () => {
    const view = toRunView(row);
    expect(view.id).toBe('9007199254740993');
    expect(view).toMatchObject({ pauseReason: 'CREDITS_EXHAUSTED', segments: 240, charged: 480 });
    expect(view.checkpoint).toEqual({
      cursor: '18446744073709551615',
      batchesPublished: 7,
      batchesFinished: 5,
      at: '2030-01-02T03:05:00.000Z',
    });
    expect(view.counters).toEqual({
      total: 1000,
      pending: 10,
      sending: 20,
      sent: 30,
      delivered: 40,
      read: 50,
      failed: 60,
      unknown: 70,
      skipped: 80,
    });
  });

  it('shows DATETIME columns as ISO 8601 and NULL ones as null', () => {
    const view = toRunView(row);
    expect(view).toMatchObject({
      campaignId: 'cmp_1',
      fireAt: '2030-01-02T03:04:05.006Z',
      state: RunState.Running,
      leaseEpoch: 4,
      leaseOwner: 'expander-1',
      attempts: 2,
      failureReason: null,
      expandedAt: null,
      startedAt: '2030-01-02T03:04:06.000Z',
      finishedAt: null,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-02T03:05:00.001Z',
    });
    expect(toRunView({ ...row, lease_owner: null, failure_reason: 'gave up' })).toMatchObject({
      leaseOwner: null,
      failureReason: 'gave up',
    });
  });
});
