import { Module } from '@nestjs/common';

/** Placeholder: filled in by the runs feature. */
@Module({})
export class RunsModule {}
