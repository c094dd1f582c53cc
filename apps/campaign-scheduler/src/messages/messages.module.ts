import { Module } from '@nestjs/common';

/** Placeholder: filled in by the messages feature. */
@Module({})
export class MessagesModule {}
