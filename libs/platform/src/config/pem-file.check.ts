import { readFileSync } from 'node:fs';

export type PemKind = 'CERTIFICATE' | 'PRIVATE KEY';

/** A PEM file's text, or why it cannot be read (the error code and the path, never its content). */
export function readPemFile(path: string): { text: string } | { problem: string } {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (error: unknown) {
    const code = (error as { code?: unknown }).code;
    return { problem: `cannot be read (${typeof code === 'string' ? code : 'unreadable'}): ${path}` };
  }
}

/** Whether PEM text holds a block of `kind` (any private key: PKCS#8, encrypted, RSA or EC). */
export function holdsPem(text: string, kind: PemKind): boolean {
  return kind === 'PRIVATE KEY'
    ? /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)
    : text.includes(`-----BEGIN ${kind}-----`);
}

/**
 * What is wrong with a setting that names a PEM file of `kind`, or undefined: the TLS file settings of
 * Kafka, MySQL and Redis all use it, so each names the same problems in the same words.
 */
export function pemFileProblem(value: unknown, kind: PemKind): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a file path';
  const file = readPemFile(value);
  if ('problem' in file) return file.problem;
  return holdsPem(file.text, kind) ? undefined : `holds no PEM ${kind.toLowerCase()}: ${value}`;
}
