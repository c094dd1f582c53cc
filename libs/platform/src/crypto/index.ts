export * from './secret-box';
export * from './secret-keys';
export * from './secrets.config';
export * from './secrets.module';
