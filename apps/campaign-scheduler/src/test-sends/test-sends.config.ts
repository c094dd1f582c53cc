import { Expose } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ToInt } from '@ums/platform';

/** Test sends (`POST /v1/campaigns/{id}/test-sends`): a few messages before a campaign starts, never bulk. */
export class TestSendsConfig {
  /**
   * Test sends one tenant may make in any 60 seconds (each to at most 10 recipients), counted over every
   * replica; one more is refused with 429 TEST_SEND_RATE_LIMITED. Keeps the route from standing in for campaigns.
   */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(1_000) TEST_SENDS_PER_MINUTE = 10;
}
