import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

export class ContactListsConfig {
  /**
   * Members per window when a list is copied into a campaign's audience: one INSERT IGNORE ... SELECT
   * (and a count, and the rejects of rows without the template's variables) per window of member ids.
   */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100_000) CONTACT_LIST_COPY_ROWS = 5_000;
}
