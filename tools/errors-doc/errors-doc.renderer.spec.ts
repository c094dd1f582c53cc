import { documentedEnums } from './errors-doc.renderer';

describe('documentedEnums', () => {
  it('reads string enums with the comments of the enum and of each member', () => {
    const source = [
      '/** Refusals of the widget API. */',
      'export enum WidgetErrorCode {',
      '  /** 404: no widget with this id. */',
      "  NotFound = 'WIDGET_NOT_FOUND',",
      "  Undocumented = 'WIDGET_BROKEN',",
      '}',
      'export const notAnEnum = 1;',
    ].join('\n');
    const enums = documentedEnums(source);
    expect([...enums.keys()]).toEqual(['WidgetErrorCode']);
    expect(enums.get('WidgetErrorCode')).toEqual({
      comment: 'Refusals of the widget API.',
      members: new Map([
        ['WIDGET_NOT_FOUND', '404: no widget with this id.'],
        ['WIDGET_BROKEN', ''],
      ]),
    });
  });
});
