import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { UpdateCampaignDto } from './update-campaign.dto';

/** The reasons class-validator gives for a body's priority. */
function issues(body: object): string[] {
  return validateSync(plainToInstance(UpdateCampaignDto, body)).flatMap((error) =>
    Object.values(error.constraints ?? {}),
  );
}

describe('IsCampaignPriority', () => {
  it('takes an integer 1..10, or none', () => {
    for (const priority of [1, 2, 10]) expect(issues({ priority })).toEqual([]);
    expect(issues({})).toEqual([]);
  });

  it('refuses anything else, saying what it must be', () => {
    for (const priority of [0, 11, -1, 2.5, '3', true, Number.NaN]) {
      const reasons = issues({ priority });
      expect(reasons.length).toBeGreaterThan(0);
      expect(new Set(reasons)).toEqual(new Set(['priority must be an integer 1..10']));
    }
  });
});
