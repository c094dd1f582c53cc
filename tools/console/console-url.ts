import type { LocalStack } from '../stack/local-stack';

/** The operator console's URL in a running stack (its web pages, `/api/scheduler` and `/api/dispatcher`). */
export function consoleUrlOf(stack: Pick<LocalStack, 'services'>): string {
  const service = stack.services.find((candidate) => candidate.name === 'operator-console');
  if (service === undefined) throw new Error('operator-console is not running in the stack');
  return service.url;
}
