import type { SchedulerOperations, SchedulerPaths } from '../api.types';
import type { HttpTransport } from '../http-transport';

/** The campaign-scheduler's transport, typed by its document's paths. */
export type SchedulerTransport = HttpTransport<SchedulerPaths>;
/** Its operations by operationId. */
export type Op = SchedulerOperations;
