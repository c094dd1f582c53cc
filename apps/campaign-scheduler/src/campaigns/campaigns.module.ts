import { Module } from '@nestjs/common';

/** Placeholder: filled in by the campaigns feature. */
@Module({})
export class CampaignsModule {}
