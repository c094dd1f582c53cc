/** A variable name: what `{{name}}` may hold and what an audience column may be called. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export function isValidVariableName(name: string): boolean {
  return VARIABLE_NAME_PATTERN.test(name);
}

/** The message content of a campaign or a single send; text, subject and parameters may hold placeholders. */
export interface TemplateContent {
  text?: string;
  subject?: string;
  /** A provider-side template (WhatsApp): its name and language are sent as they are. */
  templateName?: string;
  templateLanguage?: string;
  templateParameters?: string[];
}

export type TemplateTextParse =
  { readonly ok: true; readonly variables: string[] } | { readonly ok: false; readonly reason: string };

export type TemplateVariables =
  | { readonly ok: true; readonly variables: string[] }
  | { readonly ok: false; readonly field: string; readonly reason: string };

export type RenderedContent =
  | { readonly ok: true; readonly content: TemplateContent }
  | { readonly ok: false; readonly missing: string[] };

/** A content whose placeholders are parsed once; render it for each recipient. */
export interface CompiledTemplate {
  /** Distinct variable names in order of first appearance across text, subject and templateParameters. */
  readonly variables: readonly string[];
  render(variables: Readonly<Record<string, string>>): RenderedContent;
}

export type TemplateCompilation =
  | { readonly ok: true; readonly template: CompiledTemplate }
  | { readonly ok: false; readonly field: string; readonly reason: string };

/** Thrown by renderContent for a content that templateVariables would refuse (validate before storing). */
export class InvalidTemplateError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InvalidTemplateError';
  }
}

// A parsed text: literals.length === names.length + 1, rendered as literals[0] names[0] literals[1] ...
interface ParsedText {
  readonly literals: readonly string[];
  readonly names: readonly string[];
}

type TextParse =
  { readonly ok: true; readonly parsed: ParsedText } | { readonly ok: false; readonly reason: string };

// Spaces and tabs around a name are allowed: {{ first_name }}.
const PADDING = /^[ \t]+|[ \t]+$/g;
const SHOWN_NAME_LENGTH = 40;

/** 1-based position in user-perceived terms (code points, so an emoji counts once). */
function characterAt(text: string, index: number): number {
  return Array.from(text.slice(0, index)).length + 1;
}

function describeName(name: string): string {
  const shown = name.length > SHOWN_NAME_LENGTH ? `${name.slice(0, SHOWN_NAME_LENGTH)}...` : name;
  return JSON.stringify(shown);
}

function parseText(text: string): TextParse {
  const literals: string[] = [];
  const names: string[] = [];
  let position = 0;
  for (;;) {
    const open = text.indexOf('{{', position);
    if (open === -1) break;
    const close = text.indexOf('}}', open + 2);
    if (close === -1) return { ok: false, reason: `unclosed "{{" at character ${characterAt(text, open)}` };
    const inner = text.slice(open + 2, close);
    if (inner.includes('{')) {
      return {
        ok: false,
        reason: `nested braces in the placeholder at character ${characterAt(text, open)}`,
      };
    }
    const name = inner.replace(PADDING, '');
    if (name === '')
      return { ok: false, reason: `empty placeholder at character ${characterAt(text, open)}` };
    if (!isValidVariableName(name)) {
      return {
        ok: false,
        reason:
          `invalid variable name ${describeName(name)} at character ${characterAt(text, open)}: ` +
          'a letter or _ then letters, digits, _ . or -, at most 64 characters',
      };
    }
    literals.push(text.slice(position, open));
    names.push(name);
    position = close + 2;
  }
  literals.push(position === 0 ? text : text.slice(position));
  return { ok: true, parsed: { literals, names } };
}

// Campaigns reuse a handful of texts for millions of messages, so parses are cached by text.
// Bounded by entry count and text length; cleared whole when full (cheap, and hot texts return at once).
const MAX_CACHED_TEXTS = 256;
const MAX_CACHED_TEXT_LENGTH = 100_000;
const parseCache = new Map<string, TextParse>();

function parseTextCached(text: string): TextParse {
  const cached = parseCache.get(text);
  if (cached !== undefined) return cached;
  const result = parseText(text);
  if (text.length <= MAX_CACHED_TEXT_LENGTH) {
    if (parseCache.size >= MAX_CACHED_TEXTS) parseCache.clear();
    parseCache.set(text, result);
  }
  return result;
}

/** The distinct variables of one text, in order of first appearance, or why the text is not a template. */
export function parseTemplateText(text: string): TemplateTextParse {
  const result = parseTextCached(text);
  return result.ok ? { ok: true, variables: [...new Set(result.parsed.names)] } : result;
}

// A parsed text whose names are replaced by indexes into the template's distinct variables.
interface Slotted {
  readonly literals: readonly string[];
  readonly slots: readonly number[];
}

function fill(text: Slotted, values: readonly string[]): string {
  const { literals, slots } = text;
  let out = literals[0] as string;
  for (let i = 0; i < slots.length; i++) out += (values[slots[i] as number] as string) + literals[i + 1];
  return out;
}

class Compiled implements CompiledTemplate {
  constructor(
    readonly variables: readonly string[],
    private readonly text: Slotted | undefined,
    private readonly subject: Slotted | undefined,
    private readonly parameters: readonly Slotted[] | undefined,
    private readonly content: TemplateContent,
  ) {}

  render(variables: Readonly<Record<string, string>>): RenderedContent {
    const values: string[] = new Array<string>(this.variables.length);
    let missing: string[] | undefined;
    for (let i = 0; i < this.variables.length; i++) {
      const name = this.variables[i] as string;
      // Own properties only: a recipient without "constructor" must not get Object.prototype.constructor.
      const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
      if (typeof value === 'string') values[i] = value;
      else (missing ??= []).push(name);
    }
    if (missing !== undefined) return { ok: false, missing };
    const content: TemplateContent = { ...this.content };
    if (this.text !== undefined) content.text = fill(this.text, values);
    if (this.subject !== undefined) content.subject = fill(this.subject, values);
    if (this.parameters !== undefined)
      content.templateParameters = this.parameters.map((p) => fill(p, values));
    return { ok: true, content };
  }
}

/**
 * Parses the placeholders of text, subject and each templateParameters[i] once. Values are inserted
 * as they are: no escaping, and a value holding "{{x}}" stays literal (no recursion).
 */
export function compileTemplate(content: TemplateContent): TemplateCompilation {
  const variables: string[] = [];
  const indexOf = new Map<string, number>();
  const slot = (text: string): Slotted | { readonly reason: string } => {
    const result = parseTextCached(text);
    if (!result.ok) return result;
    const slots = result.parsed.names.map((name) => {
      let index = indexOf.get(name);
      if (index === undefined) {
        index = variables.length;
        indexOf.set(name, index);
        variables.push(name);
      }
      return index;
    });
    return { literals: result.parsed.literals, slots };
  };

  let text: Slotted | undefined;
  if (content.text !== undefined) {
    const s = slot(content.text);
    if ('reason' in s) return { ok: false, field: 'template.text', reason: s.reason };
    text = s;
  }
  let subject: Slotted | undefined;
  if (content.subject !== undefined) {
    const s = slot(content.subject);
    if ('reason' in s) return { ok: false, field: 'template.subject', reason: s.reason };
    subject = s;
  }
  let parameters: Slotted[] | undefined;
  if (content.templateParameters !== undefined) {
    parameters = [];
    for (const [i, parameter] of content.templateParameters.entries()) {
      const s = slot(parameter);
      if ('reason' in s) return { ok: false, field: `template.templateParameters[${i}]`, reason: s.reason };
      parameters.push(s);
    }
  }
  // A copy, so later changes to the caller's object do not leak into rendered messages.
  const base: TemplateContent = { ...content };
  if (base.templateParameters !== undefined) base.templateParameters = [...base.templateParameters];
  return { ok: true, template: new Compiled(variables, text, subject, parameters, base) };
}

/** The distinct variables of a content, in order of first appearance across text, subject and parameters. */
export function templateVariables(content: TemplateContent): TemplateVariables {
  const compiled = compileTemplate(content);
  return compiled.ok ? { ok: true, variables: [...compiled.template.variables] } : compiled;
}

/**
 * Fills a content from one recipient's own variables. A variable absent from the record is missing
 * (an empty string is a value). Throws InvalidTemplateError for a content templateVariables refuses.
 */
export function renderContent(
  content: TemplateContent,
  variables: Readonly<Record<string, string>>,
): RenderedContent {
  const compiled = compileTemplate(content);
  if (!compiled.ok) throw new InvalidTemplateError(compiled.field, compiled.reason);
  return compiled.template.render(variables);
}
