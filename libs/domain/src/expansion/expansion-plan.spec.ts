import { batchesAhead, chunkItems, expansionBatchId, mayPublishStep } from './expansion-plan';

describe('expansion plan', () => {
  it('counts batches ahead of the senders', () => {
    expect(batchesAhead({ batchesPublished: 10, batchesFinished: 4 })).toBe(6);
    expect(batchesAhead({ batchesPublished: 3, batchesFinished: 5 })).toBe(-2);
  });

  it('publishes while the run is less than one window ahead', () => {
    expect(mayPublishStep({ batchesPublished: 49, batchesFinished: 0 }, 50)).toBe(true);
    expect(mayPublishStep({ batchesPublished: 50, batchesFinished: 0 }, 50)).toBe(false);
    expect(mayPublishStep({ batchesPublished: 60, batchesFinished: 11 }, 50)).toBe(true);
    expect(mayPublishStep({ batchesPublished: 0, batchesFinished: 5 }, 1)).toBe(true);
  });

  it('chunks items into batches in order, the last one shorter', () => {
    expect(chunkItems([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunkItems([], 100)).toEqual([]);
    expect(chunkItems([1, 2], 100)).toEqual([[1, 2]]);
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => chunkItems([1], 0)).toThrow(RangeError);
    expect(() => chunkItems([1], 1.5)).toThrow(RangeError);
  });

  it('names batches after run, epoch and sequence', () => {
    expect(expansionBatchId('42', 3, 17)).toBe('run-42.e3.b17');
  });
});
