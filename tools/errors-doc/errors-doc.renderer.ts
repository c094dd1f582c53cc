import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODE_AREAS } from '@ums/contracts';
import ts from 'typescript';

/** One documented enum of the catalogue: its own comment, and each member's value and comment. */
interface DocumentedEnum {
  readonly comment: string;
  readonly members: ReadonlyMap<string, string>;
}

/** The first JSDoc comment of a node, on one line. */
function docOf(node: ts.Node): string {
  const doc = ts.getJSDocCommentsAndTags(node).find(ts.isJSDoc);
  const text =
    typeof doc?.comment === 'string' ? doc.comment : (ts.getTextOfJSDocComment(doc?.comment) ?? '');
  return text.replace(/\s+/g, ' ').trim();
}

/** The string enums declared in a source text, by name, with their comments. */
export function documentedEnums(source: string, fileName = 'errors.ts'): Map<string, DocumentedEnum> {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const enums = new Map<string, DocumentedEnum>();
  for (const statement of file.statements) {
    if (!ts.isEnumDeclaration(statement)) continue;
    const members = new Map<string, string>();
    for (const member of statement.members) {
      if (member.initializer !== undefined && ts.isStringLiteral(member.initializer)) {
        members.set(member.initializer.text, docOf(member));
      }
    }
    enums.set(statement.name.text, { comment: docOf(statement), members });
  }
  return enums;
}

/** Every enum of the catalogue's area files (`libs/contracts/src/errors/*.enum.ts`). */
export function readCatalogue(errorsDir: string): Map<string, DocumentedEnum> {
  const all = new Map<string, DocumentedEnum>();
  for (const name of readdirSync(errorsDir)
    .filter((f) => f.endsWith('.enum.ts'))
    .sort()) {
    for (const [enumName, documented] of documentedEnums(readFileSync(join(errorsDir, name), 'utf8'), name)) {
      all.set(enumName, documented);
    }
  }
  return all;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** Renders docs/error-codes.md from the catalogue, so the document cannot drift from the code. */
export function renderErrorCodesDoc(catalogue: ReadonlyMap<string, DocumentedEnum>): string {
  const lines: string[] = [
    '# Error codes',
    '',
    '<!-- Generated from libs/contracts/src/errors by `npm run docs:errors`; a test fails when this file is stale. -->',
    '',
    'Every code our services raise, store or answer with is a member of a string enum in',
    '[`libs/contracts/src/errors`](../libs/contracts/src/errors), one file per area; `ErrorCode` is their union,',
    'and `CodedError` (libs/platform) takes nothing else. HTTP answers carry the code as `{ error: { code, message, fields? } }`',
    "(the status comes from the error's kind); dead letters and message rows keep code and text in separate",
    "columns. Where a row or header has a single text column (a delivery's or subscriber's last error, an audience",
    "import's error, the `ums-last-error` retry header) it holds `describeFailure(code, text)`: `CODE: text`.",
    '',
    'Codes of other software are kept as they come and are not listed here: MySQL (`ER_*`), Node and undici',
    "(`E*`, `ERR_*`, `UND_ERR_*`, `CERT_*`), jose, Kafka protocol errors, providers' own codes and `HTTP_<status>`",
    "labels of their answers. The provider simulator's admin API has a few codes of its own",
    '(`apps/provider-simulator/src/credentials/simulator-error-code.enum.ts`).',
    '',
  ];
  for (const area of ERROR_CODE_AREAS) {
    const documented = catalogue.get(area.name);
    if (documented === undefined) throw new Error(`${area.name} is not declared in the errors directory`);
    const prefix = area.prefix === undefined ? '' : ` Codes start with \`${area.prefix}\`.`;
    lines.push(`## ${area.area} (\`${area.name}\`)`, '', `${documented.comment}${prefix}`, '');
    lines.push('| code | raised when |', '|---|---|');
    for (const code of Object.values(area.codes)) {
      lines.push(`| \`${code}\` | ${cell(documented.members.get(code) ?? '')} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
