export * from './audience-address';
export * from './audience-encoding';
export * from './audience-header';
export * from './audience-row';
