import { InitialSchema1763790000000 } from './1763790000000-initial-schema.migration';

/** Every migration in order; append new ones, never edit or remove landed ones. */
export const allMigrations = [InitialSchema1763790000000];
