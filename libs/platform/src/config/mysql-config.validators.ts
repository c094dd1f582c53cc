import { ValidateBy } from 'class-validator';
import { type PemKind, pemFileProblem } from './pem-file.check';

/** How the MySQL connection uses TLS, as the mysql client's --ssl-mode names it. */
export const MYSQL_SSL_MODES = ['DISABLED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'] as const;
export type MysqlSslMode = (typeof MYSQL_SSL_MODES)[number];

type Fields = Record<string, unknown>;

/** The value, when set, names a file this process can read that holds a PEM block of `kind`. */
export function PemFile(kind: PemKind): PropertyDecorator {
  return ValidateBy({
    name: 'pemFile',
    validator: {
      validate: (value: unknown) => value === undefined || pemFileProblem(value, kind) === undefined,
      defaultMessage: (args) => `${args?.property ?? 'file'} ${pemFileProblem(args?.value, kind) ?? ''}`,
    },
  });
}

/** Set only when MYSQL_SSL_MODE uses TLS (a file given to an unencrypted connection is a mistake). */
export function OnlyWithMysqlTls(): PropertyDecorator {
  return ValidateBy({
    name: 'onlyWithMysqlTls',
    validator: {
      validate: (value: unknown, args) =>
        value === undefined || (args?.object as Fields)['MYSQL_SSL_MODE'] !== 'DISABLED',
      defaultMessage: (args) => `${args?.property ?? 'this'} is set but MYSQL_SSL_MODE is DISABLED`,
    },
  });
}

/** VERIFY_CA checks the server's chain against MYSQL_SSL_CA_FILE, which must then be set. */
export function CaFileForVerifyCa(): PropertyDecorator {
  return ValidateBy({
    name: 'caFileForVerifyCa',
    validator: {
      validate: (value: unknown, args) =>
        value !== 'VERIFY_CA' || (args?.object as Fields)['MYSQL_SSL_CA_FILE'] !== undefined,
      defaultMessage: () =>
        'MYSQL_SSL_MODE VERIFY_CA needs MYSQL_SSL_CA_FILE (the CA that signed the server)',
    },
  });
}

/** Set only with `other` (a client certificate without its key, a read port without its host). */
export function OnlyWith(other: string): PropertyDecorator {
  return ValidateBy({
    name: 'onlyWith',
    constraints: [other],
    validator: {
      validate: (value: unknown, args) =>
        value === undefined || (args?.object as Fields)[other] !== undefined,
      defaultMessage: (args) => `${args?.property ?? 'this'} is set but ${other} is not`,
    },
  });
}
