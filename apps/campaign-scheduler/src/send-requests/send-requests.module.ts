import { Module } from '@nestjs/common';

/** Placeholder: filled in by the send-requests feature. */
@Module({})
export class SendRequestsModule {}
