import { Module } from '@nestjs/common';
import { ManagementServer } from './management-server';

/** The management listener (health and metrics); bootstrapService starts it after the API listens. */
@Module({ providers: [ManagementServer], exports: [ManagementServer] })
export class ManagementModule {}
