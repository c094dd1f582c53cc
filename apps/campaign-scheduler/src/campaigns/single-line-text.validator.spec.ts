import { singleLineTextProblem } from './single-line-text.validator';

describe('singleLineTextProblem', () => {
  it.each(['Winter sale', 'Größe – 50 % 😀', ' padded '])('accepts %j', (value) => {
    expect(singleLineTextProblem(value)).toBeUndefined();
  });

  it.each([
    ['', 'must not be blank'],
    [' \t ', 'must not be blank'],
    ['two\nlines', 'must not contain control characters (found U+000A)'],
    ['nul\u0000', 'must not contain control characters (found U+0000)'],
    ['\u001b[31mred', 'must not contain control characters (found U+001B)'],
    [42, 'must be a string'],
  ])('refuses %j: %s', (value, problem) => {
    expect(singleLineTextProblem(value)).toBe(problem);
  });
});
