import { Module } from '@nestjs/common';

/** Placeholder: filled in by the audience feature. */
@Module({})
export class AudienceModule {}
