export * from './api.types';
export * from './campaign-api.client';
export * from './client.errors';
export * from './client.options';
export * from './dispatcher-api.client';
export type { HttpTransport } from './http-transport';
