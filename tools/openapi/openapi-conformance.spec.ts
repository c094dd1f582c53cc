import 'reflect-metadata';
import type { OpenAPIObject } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { missingLimits } from './dto-limits';
import { exampleProblems, operationProblems } from './openapi-conformance';

const json = (schema: object, example: unknown): object => ({ 'application/json': { schema, example } });

/** A document of one operation, as the generator writes them, with `change` applied. */
function documentWith(change: (operation: Record<string, unknown>) => void): OpenAPIObject {
  const operation: Record<string, unknown> = {
    operationId: 'Things_create',
    description: 'Needs the `things:write` scope.',
    security: [{ bearer: ['things:write'] }],
    requestBody: { content: json({ $ref: '#/components/schemas/Thing' }, { name: 'a' }) },
    responses: {
      '201': { description: 'Created', content: json({ $ref: '#/components/schemas/Thing' }, { name: 'a' }) },
      '404': {
        description: 'Not found',
        content: { 'application/json': { schema: { type: 'object' }, examples: { X: { value: {} } } } },
      },
    },
  };
  change(operation);
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/things': { post: operation } },
    components: {
      schemas: {
        Thing: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 3 } } },
      },
    },
  } as unknown as OpenAPIObject;
}

describe('operationProblems', () => {
  it('accepts an operation with its scope, examples and an error answer', () => {
    expect(operationProblems(documentWith(() => undefined))).toEqual([]);
  });

  it('accepts an operation open to any credential, with its reason', () => {
    const document = documentWith((op) => {
      op['security'] = [{ bearer: [] }];
      op['description'] = 'Needs a valid credential, no scope: it answers the caller only.';
    });
    expect(operationProblems(document)).toEqual([]);
    const unexplained = documentWith((op) => {
      op['security'] = [{ bearer: [] }];
      op['description'] = '';
    });
    expect(operationProblems(unexplained)).toEqual([
      'POST /things: no scope (bearer requirement and description) and not public with a reason',
    ]);
  });

  it('names an operation without a scope or reason, without an error answer or without examples', () => {
    const problems = operationProblems(
      documentWith((op) => {
        op['security'] = [];
        op['responses'] = {
          '201': { description: 'Created', content: { 'application/json': { schema: {} } } },
        };
        op['requestBody'] = { content: { 'application/json': { schema: {} } } };
      }),
    );
    expect(problems).toEqual([
      'POST /things: no scope (bearer requirement and description) and not public with a reason',
      'POST /things: the 201 answer has no schema or no example',
      'POST /things: no error answer',
      'POST /things: its request body has no example',
    ]);
  });
});

describe('exampleProblems', () => {
  it('names an example that its schema refuses, through a component reference', () => {
    const document = documentWith((op) => {
      op['requestBody'] = { content: json({ $ref: '#/components/schemas/Thing' }, { name: 'too long' }) };
    });
    expect(exampleProblems(document)).toEqual([
      'POST /things request body: /name must NOT have more than 3 characters',
    ]);
  });
});

class Named {
  @IsString() @MaxLength(3) name!: string;
  @IsIn(['x', 'y']) kind!: string;
}

describe('missingLimits', () => {
  it('names each limit a schema lost', () => {
    const full = { name: { type: 'string', maxLength: 3 }, kind: { type: 'string', enum: ['y', 'x'] } };
    expect(missingLimits(Named, full)).toEqual([]);
    expect(missingLimits(Named, { name: { type: 'string' }, kind: { type: 'string', enum: ['x'] } })).toEqual(
      ['Named.name: maxLength [3]', 'Named.kind: isIn [["x","y"]]'],
    );
  });
});
