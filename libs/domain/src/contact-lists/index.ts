export * from './contact-list-segment';
