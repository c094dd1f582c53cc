import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * One prom-client registry per application instance (not the global default), so several
 * Nest apps in one test process never collide on metric names.
 */
export class MetricsRegistry extends Registry {
  constructor(serviceName: string) {
    super();
    this.setDefaultLabels({ service: serviceName });
    collectDefaultMetrics({ register: this });
  }
}
