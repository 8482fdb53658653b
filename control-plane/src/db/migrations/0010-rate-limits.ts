import { Migration } from '@mikro-orm/migrations';

export class Migration0010RateLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- Counters of rate-limiter-flexible (its own layout), shared by every replica. Unlogged:
      -- a crash forgets the counts, which only relaxes limits for one window.
      create unlogged table rate_limits (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table rate_limits;');
  }
}
