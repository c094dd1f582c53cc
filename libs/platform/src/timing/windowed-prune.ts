/**
 * Deletes in windows: calls `deleteWindow(window)` (one short statement deleting at most `window` rows)
 * until one comes back short or `maxWindows` have run, so a backlog (a first start on an old table) is
 * worked off over several ticks. `onDeleted` hears each window's count as it returns: a failing window
 * does not hide the ones before it. Returns the rows deleted.
 */
export async function pruneInWindows(
  deleteWindow: (window: number) => Promise<number>,
  options: {
    readonly window: number;
    readonly maxWindows: number;
    readonly onDeleted: (rows: number) => void;
  },
): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < options.maxWindows; i++) {
    const rows = await deleteWindow(options.window);
    if (rows > 0) options.onDeleted(rows);
    deleted += rows;
    if (rows < options.window) break;
  }
  return deleted;
}
