export * from './provider-endpoints.config';
export * from './provider-endpoints.module';
