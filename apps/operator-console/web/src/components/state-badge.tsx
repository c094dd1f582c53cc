/** A state (RUNNING, DEAD, ...) as a coloured badge; the text is the state as the API writes it. */
export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return (
    <span class={`badge badge-${state.toLowerCase().replace(/[^a-z]+/g, '-')}`} data-testid={testId}>
      {state}
    </span>
  );
}
