import * as contracts from '@ums/contracts';
import { CampaignState } from '@ums/domain';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

function isViewSchema(value: unknown): value is contracts.ViewSchema {
  const view = value as Partial<contracts.ViewSchema> | undefined;
  return typeof view?.name === 'string' && typeof view.schema === 'object' && Array.isArray(view.uses);
}

const views = (Object.values(contracts) as unknown[]).filter(isViewSchema);

describe('the view schemas of libs/contracts/src/api', () => {
  it('have examples that match their schemas', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const schemas = Object.fromEntries(views.map((view) => [view.name, view.schema]));
    ajv.addSchema({ $id: 'https://ums.invalid/views', components: { schemas } });
    expect(views.length).toBeGreaterThan(20);
    const refused = views.flatMap((view) => {
      const validate = ajv.getSchema(`https://ums.invalid/views#/components/schemas/${view.name}`);
      if (validate === undefined) return [`${view.name}: no schema`];
      return validate(view.example) ? [] : [`${view.name}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(refused).toEqual([]);
  });

  it('list every view they refer to among their uses, by a name no other view has', () => {
    const names = views.map((view) => view.name);
    expect(new Set(names).size).toBe(names.length);
    for (const view of views) {
      const refs = [...JSON.stringify(view.schema).matchAll(/#\/components\/schemas\/([A-Za-z]+)/g)].map(
        (m) => m[1],
      );
      expect([view.name, [...new Set(refs)].sort()]).toEqual([
        view.name,
        view.uses.map((u) => u.name).sort(),
      ]);
    }
  });

  it("name the campaign states of the domain's state machine", () => {
    expect([...contracts.CAMPAIGN_STATES].sort()).toEqual(Object.values(CampaignState).sort());
  });
});
