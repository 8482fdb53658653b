import { expect } from 'chai';
import {
  canonicalTimezone,
  expectationAfter,
  expectationAfterMiss,
  nextOccurrence,
  scheduleProblem,
  typicalIntervalSeconds,
  type HeartbeatTiming,
} from '../../../control-plane/src/features/heartbeats/heartbeat-schedule.js';

const cron = (schedule: string, timezone = 'UTC'): HeartbeatTiming => ({ intervalSeconds: null, schedule, timezone });
const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('heartbeat schedule', () => {
  describe('nextOccurrence', () => {
    it('runs a time skipped by spring-forward at the first valid time after the gap', () => {
      // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST, so there is no 02:30.
      expect(iso(nextOccurrence('30 2 * * *', 'Europe/Berlin', at('2026-03-28T12:00:00Z')))).to.equal('2026-03-29T01:00:00.000Z');
      expect(iso(nextOccurrence('30 2 * * *', 'Europe/Berlin', at('2026-03-29T01:00:00Z')))).to.equal('2026-03-30T00:30:00.000Z');
    });

    it('runs a time repeated by fall-back once, at its first occurrence', () => {
      // Berlin, 2026-10-25: 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET).
      expect(iso(nextOccurrence('30 2 * * *', 'Europe/Berlin', at('2026-10-24T12:00:00Z')))).to.equal('2026-10-25T00:30:00.000Z');
      expect(iso(nextOccurrence('30 2 * * *', 'Europe/Berlin', at('2026-10-25T00:30:00Z')))).to.equal('2026-10-26T01:30:00.000Z');
    });

    it('keeps a local time across the change: 09:00 New York is 13:00Z in summer and 14:00Z in winter', () => {
      expect(iso(nextOccurrence('0 9 * * *', 'America/New_York', at('2026-10-31T14:00:00Z')))).to.equal('2026-11-01T14:00:00.000Z');
      expect(iso(nextOccurrence('0 9 * * *', 'America/New_York', at('2026-10-30T14:00:00Z')))).to.equal('2026-10-31T13:00:00.000Z');
    });

    it('reads nicknames and six fields with seconds first', () => {
      expect(iso(nextOccurrence('@daily', 'UTC', at('2026-05-01T10:00:00Z')))).to.equal('2026-05-02T00:00:00.000Z');
      expect(iso(nextOccurrence('15 */5 * * * *', 'UTC', at('2026-05-01T10:00:00Z')))).to.equal('2026-05-01T10:00:15.000Z');
    });
  });

  describe('scheduleProblem', () => {
    it('accepts valid expressions and names what is wrong with others', () => {
      for (const ok of ['*/5 * * * *', '0 9 * * MON-FRI', '@hourly', '0 0 12 * * *']) expect(scheduleProblem(ok), ok).to.equal(null);
      expect(scheduleProblem('61 * * * *')).to.match(/^schedule is not a valid cron expression: .*minute/);
      expect(scheduleProblem('* * * *')).to.match(/five, six/);
      expect(scheduleProblem('0 0 * * * * 2030'), 'years are not offered').to.match(/not a valid cron expression/);
      expect(scheduleProblem('0 0 30 2 *')).to.equal('schedule never fires (no date matches it)');
      expect(scheduleProblem('@reboot')).to.match(/no time/);
    });
  });

  describe('canonicalTimezone', () => {
    it('answers the IANA name or null', () => {
      expect(canonicalTimezone('europe/berlin')).to.equal('Europe/Berlin');
      expect(canonicalTimezone('UTC')).to.equal('UTC');
      expect(canonicalTimezone('Mars/Olympus')).to.equal(null);
    });
  });

  describe('expectations', () => {
    it('expects an interval heartbeat an interval after its ping and waits after a miss', () => {
      const interval: HeartbeatTiming = { intervalSeconds: 60, schedule: null, timezone: 'UTC' };
      const next = expectationAfter(interval, 30, at('2026-05-01T10:00:00Z'));
      expect([iso(next.expectedAt), iso(next.deadlineAt)]).to.deep.equal(['2026-05-01T10:01:00.000Z', '2026-05-01T10:01:30.000Z']);
      const missed = expectationAfterMiss(interval, 30, next.expectedAt, at('2026-05-01T10:02:00Z'));
      expect([iso(missed.expectedAt), iso(missed.deadlineAt)]).to.deep.equal(['2026-05-01T10:01:00.000Z', null]);
    });

    it('expects a cron heartbeat at the next run after a miss, grace later', () => {
      const missed = expectationAfterMiss(cron('0 * * * *'), 120, at('2026-05-01T10:00:00Z'), at('2026-05-01T10:02:01Z'));
      expect([iso(missed.expectedAt), iso(missed.deadlineAt)]).to.deep.equal(['2026-05-01T11:00:00.000Z', '2026-05-01T11:02:00.000Z']);
    });

    it('gives a cron heartbeat the gap between its next runs as its interval', () => {
      expect(typicalIntervalSeconds(cron('*/15 * * * *'), at('2026-05-01T10:00:00Z'))).to.equal(900);
      expect(typicalIntervalSeconds({ intervalSeconds: 42, schedule: null, timezone: 'UTC' }, at('2026-05-01T10:00:00Z'))).to.equal(42);
    });
  });
});
