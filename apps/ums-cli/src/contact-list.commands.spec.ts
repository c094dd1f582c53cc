import { UsageError } from './cli.errors';
import { segmentFromWhere } from './contact-list.commands';

describe('segmentFromWhere', () => {
  it('is no segment without --where', () => {
    expect(segmentFromWhere([], 'usage')).toBeUndefined();
  });

  it('reads NAME=VALUE[,VALUE...], the same name again adding values', () => {
    expect(segmentFromWhere(['city=Berlin', 'plan=gold,silver', 'plan=bronze', 'note=a=b'], 'usage')).toEqual(
      {
        city: ['Berlin'],
        plan: ['gold', 'silver', 'bronze'],
        note: ['a=b'],
      },
    );
  });

  it('refuses a pair without a name or an =', () => {
    expect(() => segmentFromWhere(['Berlin'], 'usage')).toThrow(UsageError);
    expect(() => segmentFromWhere(['=Berlin'], 'usage')).toThrow('is not NAME=VALUE[,VALUE...]');
  });
});
