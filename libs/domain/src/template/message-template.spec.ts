import {
  compileTemplate,
  InvalidTemplateError,
  isValidVariableName,
  parseTemplateText,
  renderContent,
  templateVariables,
  VARIABLE_NAME_PATTERN,
  type TemplateContent,
} from './message-template';

describe('isValidVariableName', () => {
  it.each(['a', 'A', '_', 'first_name', 'FirstName', 'x1', 'order.total', 'due-date', '_9', 'a'.repeat(64)])(
    'accepts %s',
    (name) => {
      expect(isValidVariableName(name)).toBe(true);
      expect(VARIABLE_NAME_PATTERN.test(name)).toBe(true);
    },
  );

  it.each(['', '1a', '.a', '-a', 'first name', 'a'.repeat(65), 'naïve', 'имя', 'a{b', 'a}', 'a\n', 'a$'])(
    'refuses %j',
    (name) => {
      expect(isValidVariableName(name)).toBe(false);
    },
  );
});

describe('parseTemplateText', () => {
  it.each([
    ['', []],
    ['no placeholders at all', []],
    ['{{a}}', ['a']],
    [
      'Hi {{first_name}}, your order {{order.id}} ships {{ ship-date }}.',
      ['first_name', 'order.id', 'ship-date'],
    ],
    ['{{a}}{{b}}{{a}}', ['a', 'b']],
    ['{{ a }} {{a}} {{\ta\t}} {{   a}}', ['a']],
    ['single { braces } and a stray }} are literal', []],
    ['{{a}}}', ['a']],
    ['{{a}}}}', ['a']],
    ['Привет, {{name}}! 👋 {{emoji_count}} 🎉', ['name', 'emoji_count']],
  ])('%j -> %j', (text, variables) => {
    expect(parseTemplateText(text)).toEqual({ ok: true, variables });
  });

  it.each([
    ['Hi {{name', 'unclosed "{{" at character 4'],
    ['{{a}} and {{', 'unclosed "{{" at character 11'],
    ['{{}}', 'empty placeholder at character 1'],
    ['x {{   }}', 'empty placeholder at character 3'],
    ['{{{a}}}', 'nested braces in the placeholder at character 1'],
    ['{{ a {{b}} }}', 'nested braces in the placeholder at character 1'],
    ['{{first name}}', 'invalid variable name "first name" at character 1'],
    ['ok {{1st}}', 'invalid variable name "1st" at character 4'],
    ['{{a}b}}', 'invalid variable name "a}b" at character 1'],
    ['{{имя}}', 'invalid variable name "имя" at character 1'],
    ['{{a\nb}}', 'invalid variable name "a\\nb" at character 1'],
    // Positions count characters as people see them: each emoji is one.
    ['👋👋 {{}}', 'empty placeholder at character 4'],
  ])('refuses %j: %s', (text, reason) => {
    const result = parseTemplateText(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.startsWith(reason)).toBe(true);
  });

  it('shortens a long invalid name in the reason', () => {
    const result = parseTemplateText(`{{${'x'.repeat(200)}}}`);
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining(`"${'x'.repeat(40)}..." at character 1`) as unknown,
    });
    if (!result.ok) expect(result.reason.length).toBeLessThan(200);
  });

  it('explains the naming rule', () => {
    const result = parseTemplateText('{{a b}}');
    expect(result.ok ? '' : result.reason).toContain('at most 64 characters');
  });

  it('accepts a name of 64 characters and refuses 65', () => {
    expect(parseTemplateText(`{{${'a'.repeat(64)}}}`).ok).toBe(true);
    expect(parseTemplateText(`{{${'a'.repeat(65)}}}`).ok).toBe(false);
  });

  it('gives the same answer from the cache', () => {
    const text = 'cached {{ x }} {{y}}';
    expect(parseTemplateText(text)).toEqual(parseTemplateText(text));
    const first = parseTemplateText(text);
    if (first.ok) first.variables.push('mutated');
    expect(parseTemplateText(text)).toEqual({ ok: true, variables: ['x', 'y'] });
  });

  it('stays correct after the cache has been filled and cleared', () => {
    for (let i = 0; i < 600; i++)
      expect(parseTemplateText(`{{v${i}}}`)).toEqual({ ok: true, variables: [`v${i}`] });
    expect(parseTemplateText('{{v0}} {{')).toEqual({
      ok: false,
      reason: 'unclosed "{{" at character 8',
    });
  });
});

describe('templateVariables', () => {
  it('lists distinct names in order of first appearance across text, subject and parameters', () => {
    const content: TemplateContent = {
      text: 'Hi {{first}}, {{code}}',
      subject: '{{company}} for {{first}}',
      templateName: 'order_{{not_a_placeholder}}',
      templateLanguage: 'en_US',
      templateParameters: ['{{code}}', 'fixed', '{{ last }} {{company}}'],
    };
    expect(templateVariables(content)).toEqual({ ok: true, variables: ['first', 'code', 'company', 'last'] });
  });

  it('accepts an empty content', () => {
    expect(templateVariables({})).toEqual({ ok: true, variables: [] });
    expect(templateVariables({ templateParameters: [] })).toEqual({ ok: true, variables: [] });
  });

  it('does not treat templateName or templateLanguage as templates', () => {
    expect(templateVariables({ templateName: '{{', templateLanguage: '{{}}' })).toEqual({
      ok: true,
      variables: [],
    });
  });

  it.each([
    [{ text: 'Hi {{' }, 'template.text', 'unclosed "{{" at character 4'],
    [{ text: 'ok', subject: '{{}}' }, 'template.subject', 'empty placeholder at character 1'],
    [
      { text: 'ok', templateParameters: ['{{a}}', 'b', '{{ x y }}'] },
      'template.templateParameters[2]',
      'invalid',
    ],
    // The first problem is reported, in field order.
    [{ text: '{{1}}', subject: '{{' }, 'template.text', 'invalid variable name "1"'],
  ])('refuses %j in %s', (content, field, reason) => {
    const result = templateVariables(content);
    expect(result).toEqual({ ok: false, field, reason: expect.stringContaining(reason) as unknown });
  });
});

describe('renderContent', () => {
  const content: TemplateContent = {
    text: 'Hi {{first_name}}, order {{ order.id }} is ready.',
    subject: 'Order {{order.id}}',
    templateName: 'order_ready',
    templateLanguage: 'en',
    templateParameters: ['{{first_name}}', 'static', '{{order.id}}-{{first_name}}'],
  };

  it('fills every field from the variables', () => {
    expect(renderContent(content, { first_name: 'Ana', 'order.id': '42', unused: 'x' })).toEqual({
      ok: true,
      content: {
        text: 'Hi Ana, order 42 is ready.',
        subject: 'Order 42',
        templateName: 'order_ready',
        templateLanguage: 'en',
        templateParameters: ['Ana', 'static', '42-Ana'],
      },
    });
  });

  it('keeps absent fields absent', () => {
    const result = renderContent({ text: '{{a}}' }, { a: '1' });
    expect(result).toEqual({ ok: true, content: { text: '1' } });
    if (result.ok) expect(Object.keys(result.content)).toEqual(['text']);
  });

  it('returns the content unchanged when it has no placeholders', () => {
    expect(renderContent({ text: 'plain', subject: '' }, {})).toEqual({
      ok: true,
      content: { text: 'plain', subject: '' },
    });
  });

  it('lists every missing variable, distinct, in order of first appearance', () => {
    expect(renderContent(content, {})).toEqual({ ok: false, missing: ['first_name', 'order.id'] });
    expect(renderContent(content, { 'order.id': '1' })).toEqual({ ok: false, missing: ['first_name'] });
  });

  it('treats an empty string as a value', () => {
    expect(renderContent({ text: '[{{a}}]' }, { a: '' })).toEqual({ ok: true, content: { text: '[]' } });
  });

  it('inserts values literally: no escaping and no recursion', () => {
    const values = { a: '{{b}}', b: 'B', c: '<b>&amp;"\'</b>', d: '$& $1 $$' };
    expect(renderContent({ text: '{{a}} {{c}} {{d}}' }, values)).toEqual({
      ok: true,
      content: { text: '{{b}} <b>&amp;"\'</b> $& $1 $$' },
    });
  });

  it('reads only own properties of the variables', () => {
    const text = '{{constructor}} {{toString}} {{__proto__}}';
    expect(renderContent({ text }, {})).toEqual({
      ok: false,
      missing: ['constructor', 'toString', '__proto__'],
    });
    const own = JSON.parse('{"constructor":"c","toString":"t","__proto__":"p"}') as Record<string, string>;
    expect(renderContent({ text }, own)).toEqual({ ok: true, content: { text: 'c t p' } });
  });

  it('treats a value that is not a string as missing', () => {
    const loose = { a: undefined, b: 1 } as unknown as Record<string, string>;
    expect(renderContent({ text: '{{a}}{{b}}' }, loose)).toEqual({ ok: false, missing: ['a', 'b'] });
  });

  it('handles unicode in text, around placeholders and in values', () => {
    expect(
      renderContent({ text: 'Привет, {{name}}! 👋{{e}}👋 مرحبا {{ name }}' }, { name: 'Zoë 李', e: '🎉' }),
    ).toEqual({ ok: true, content: { text: 'Привет, Zoë 李! 👋🎉👋 مرحبا Zoë 李' } });
  });

  it('keeps fields it does not know about', () => {
    const extra = { text: '{{a}}', mediaUrl: 'https://example.test/x.png' } as TemplateContent;
    expect(renderContent(extra, { a: '1' })).toEqual({
      ok: true,
      content: { text: '1', mediaUrl: 'https://example.test/x.png' },
    });
  });

  it('does not change the content it was given', () => {
    const original: TemplateContent = { text: '{{a}}', templateParameters: ['{{a}}'] };
    renderContent(original, { a: 'x' });
    expect(original).toEqual({ text: '{{a}}', templateParameters: ['{{a}}'] });
  });

  it('throws InvalidTemplateError for an invalid template', () => {
    expect(() => renderContent({ subject: 'x {{' }, {})).toThrow(InvalidTemplateError);
    try {
      renderContent({ templateParameters: ['ok', '{{}}'] }, {});
    } catch (error) {
      expect(error).toMatchObject({
        field: 'template.templateParameters[1]',
        reason: 'empty placeholder at character 1',
      });
    }
    expect.assertions(2);
  });
});

describe('compileTemplate', () => {
  it('renders many recipients from one compilation', () => {
    const compiled = compileTemplate({ text: 'Hi {{n}} #{{i}}', templateParameters: ['{{i}}'] });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.template.variables).toEqual(['n', 'i']);
    for (let i = 0; i < 1000; i++) {
      expect(compiled.template.render({ n: `user${i}`, i: String(i) })).toEqual({
        ok: true,
        content: { text: `Hi user${i} #${i}`, templateParameters: [String(i)] },
      });
    }
    expect(compiled.template.render({ n: 'x' })).toEqual({ ok: false, missing: ['i'] });
  });

  it('is not affected by later changes to the compiled content', () => {
    const content: TemplateContent = { text: '{{a}}', templateName: 'one', templateParameters: ['p'] };
    const compiled = compileTemplate(content);
    content.templateName = 'two';
    content.templateParameters?.push('q');
    expect(compiled.ok && compiled.template.render({ a: '1' })).toEqual({
      ok: true,
      content: { text: '1', templateName: 'one', templateParameters: ['p'] },
    });
  });

  it('refuses like templateVariables', () => {
    expect(compileTemplate({ text: '{{' })).toEqual({
      ok: false,
      field: 'template.text',
      reason: 'unclosed "{{" at character 1',
    });
  });
});
