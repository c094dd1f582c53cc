import { Module } from '@nestjs/common';

/** Placeholder: filled in by the scheduling feature. */
@Module({})
export class SchedulingModule {}
