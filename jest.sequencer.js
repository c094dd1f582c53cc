// @ts-check
const Sequencer = require('@jest/test-sequencer').default;

/** End-to-end suites first, then integration, then unit: roughly slowest first. */
const tierOf = (/** @type {string} */ path) =>
  path.endsWith('.e2e-spec.ts') ? 0 : path.endsWith('.int-spec.ts') ? 1 : 2;

/**
 * Jest runs the slowest suites first when an earlier run left their durations in its cache; a clean
 * clone (CI) has none, and Jest's fallback, the largest file first, started the two-minute suites
 * last and left workers idle at the end. Without timings this orders by tier, then by size.
 */
class SlowFirstSequencer extends Sequencer {
  /** @param {Parameters<Sequencer['sort']>[0]} tests */
  sort(tests) {
    const sorted = /** @type {typeof tests} */ (super.sort(tests));
    if (sorted.some((test) => test.duration != null)) return sorted;
    return [...sorted].sort((a, b) => tierOf(a.path) - tierOf(b.path));
  }
}

module.exports = SlowFirstSequencer;
