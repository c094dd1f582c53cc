import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { UsageError } from './cli.errors';
import type { CommandContext } from './command.types';
import { formatBytes, progressBar } from './output.formatter';
import type { ProgressReporter } from './progress.reporter';

/** A file being uploaded, with the progress line that shows it. */
export interface FileUpload {
  readonly name: string;
  readonly size: number;
  readonly reporter: ProgressReporter;
  /** Redraws the progress bar for `bytes` handed to the upload. */
  draw(bytes: number): void;
}

/** The size of the file an option (--csv, --file) names; a usage error when it is no readable file. */
export function uploadSize(context: CommandContext, option: 'csv' | 'file', path: string): number {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new UsageError(`--${option} ${path} is not a file`, context.input.usage);
    return stat.size;
  } catch (error: unknown) {
    if (error instanceof UsageError) throw error;
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new UsageError(`cannot read --${option} ${path} (${code})`, context.input.usage);
  }
}

/** Checks the file an option names and opens the progress line of its upload. */
export function startUpload(context: CommandContext, option: 'csv' | 'file', path: string): FileUpload {
  const size = uploadSize(context, option, path);
  const reporter = context.progress();
  const name = basename(path);
  const draw = (bytes: number): void =>
    reporter.update(
      `uploading ${name} ${progressBar(bytes, size)} (${formatBytes(bytes)} of ${formatBytes(size)})`,
    );
  return { name, size, reporter, draw };
}

/** The file as a stream of chunks, reporting bytes read (what has been handed to the upload). */
export async function* fileChunks(
  path: string,
  onBytes: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  let sent = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    const bytes = chunk as Buffer;
    sent += bytes.length;
    onBytes(sent);
    yield bytes;
  }
}

/** A CSV file as an upload's multipart part. */
export interface CsvPart {
  readonly fileName: string;
  readonly contentType: 'text/csv';
  readonly content: AsyncGenerator<Uint8Array>;
}

/**
 * Uploads the CSV file an option names with a progress bar: `send` hands the part to the service
 * (the bar is drawn as the file is read) and answers its result; `done` words the line ending the bar.
 */
export async function uploadCsvFile<T>(
  context: CommandContext,
  file: { readonly option: 'csv' | 'file'; readonly path: string },
  send: (part: CsvPart) => Promise<T>,
  done: (result: T, name: string) => string,
): Promise<T> {
  const { name, reporter, draw } = startUpload(context, file.option, file.path);
  try {
    const result = await send({
      fileName: name,
      contentType: 'text/csv',
      content: fileChunks(file.path, draw),
    });
    reporter.finish(done(result, name));
    return result;
  } catch (error: unknown) {
    reporter.finish();
    throw error;
  }
}
