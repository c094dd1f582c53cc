import { CodedError } from '../errors/coded-error';

/** A validated message as handlers see it. */
export interface ConsumedMessage<V> {
  readonly value: V;
  readonly key: string | null;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Attempts already made on this message (0 on first consumption from its main topic). */
  readonly attempt: number;
}

export type MessageHandler<V> = (messages: readonly ConsumedMessage<V>[]) => Promise<void>;

/** Thrown by a handler when retrying cannot help: the chunk goes straight to the dead-letter topic. */
export class NonRetryableError extends CodedError {}
