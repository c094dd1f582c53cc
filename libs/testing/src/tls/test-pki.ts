import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** PEM files of one certificate and its key (PKCS#8, unencrypted). */
export interface TestCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface TestPki {
  readonly dir: string;
  /** The certificate authority that signed `server` and `client`. */
  readonly ca: TestCertificate;
  /** Valid for localhost and 127.0.0.1. */
  readonly server: TestCertificate;
  /** A client certificate for mTLS, common name `client`. */
  readonly client: TestCertificate;
  /** Another CA that signed nothing here: a client trusting it must refuse `server`. */
  readonly otherCa: TestCertificate;
}

export interface TestPkiOptions {
  /** Where the PEM files go (created when missing). */
  readonly dir: string;
  /** The client certificate's common name (`client` when omitted). */
  readonly clientName?: string;
}

/**
 * A throwaway certificate authority with a server and a client certificate, made with the
 * machine's openssl, for tests and the `--secure` demo that run TLS engines on loopback. The keys
 * are EC P-256, unencrypted PKCS#8; never use them outside a test.
 */
export function createTestPki(options: TestPkiOptions): TestPki {
  mkdirSync(options.dir, { recursive: true });
  const ca = selfSigned(options.dir, 'ca', 'ums test CA');
  const otherCa = selfSigned(options.dir, 'other-ca', 'ums unrelated CA');
  const server = signed({
    dir: options.dir,
    name: 'server',
    subject: 'localhost',
    ca,
    extensions: 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth',
  });
  const clientName = options.clientName ?? 'client';
  const client = signed({
    dir: options.dir,
    name: 'client',
    subject: clientName,
    ca,
    extensions: 'extendedKeyUsage=clientAuth',
  });
  return { dir: options.dir, ca, server, client, otherCa };
}

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function newKey(file: string): void {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file]);
}

function loaded(certFile: string, keyFile: string): TestCertificate {
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

function selfSigned(dir: string, name: string, subject: string): TestCertificate {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  newKey(keyFile);
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    keyFile,
    '-days',
    '2',
    '-subj',
    `/CN=${subject}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    certFile,
  ]);
  return loaded(certFile, keyFile);
}

interface SignedOptions {
  readonly dir: string;
  readonly name: string;
  readonly subject: string;
  readonly ca: TestCertificate;
  readonly extensions: string;
}

function signed(options: SignedOptions): TestCertificate {
  const { dir, name } = options;
  const keyFile = join(dir, `${name}.key`);
  const csrFile = join(dir, `${name}.csr`);
  const extFile = join(dir, `${name}.ext`);
  const certFile = join(dir, `${name}.crt`);
  newKey(keyFile);
  openssl(['req', '-new', '-key', keyFile, '-subj', `/CN=${options.subject}`, '-out', csrFile]);
  writeFileSync(extFile, `basicConstraints=CA:FALSE\n${options.extensions}\n`);
  openssl([
    'x509',
    '-req',
    '-in',
    csrFile,
    '-CA',
    options.ca.certFile,
    '-CAkey',
    options.ca.keyFile,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    extFile,
    '-out',
    certFile,
  ]);
  return loaded(certFile, keyFile);
}
