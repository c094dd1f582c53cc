/**
 * Wall-clock milliseconds that never run backwards (performance.now is monotonic): capacity
 * windows, statistics and callback slots all read this one clock.
 */
export function simulatorNow(): number {
  return Math.floor(performance.timeOrigin + performance.now());
}
