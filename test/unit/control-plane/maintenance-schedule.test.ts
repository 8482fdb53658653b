import { expect } from 'chai';
import { isOpenAt, occurrencesFrom, type WindowTiming } from '../../../control-plane/src/features/maintenance/maintenance-schedule.js';
import { timingAfterUpdate } from '../../../control-plane/src/features/maintenance/maintenance.service.js';
import { AppError } from '../../../control-plane/src/errors.js';

const recurring = (schedule: string, durationMinutes: number, timezone = 'UTC'): WindowTiming => ({ startsAt: null, endsAt: null, schedule, timezone, durationMinutes });
const oneOff = (startsAt: string, endsAt: string): WindowTiming => ({ startsAt: new Date(startsAt), endsAt: new Date(endsAt), schedule: null, timezone: null, durationMinutes: null });
const at = (iso: string) => new Date(iso);
const listed = (t: WindowTiming, now: string, count = 3) => occurrencesFrom(t, at(now), count).map((o) => [o.startsAt.toISOString(), o.endsAt.toISOString()]);

describe('maintenance schedule', () => {
  describe('occurrencesFrom', () => {
    it('lists the occurrence under way first, then the next ones', () => {
      expect(listed(recurring('0 2 * * *', 120), '2026-05-01T03:00:00Z')).to.deep.equal([
        ['2026-05-01T02:00:00.000Z', '2026-05-01T04:00:00.000Z'],
        ['2026-05-02T02:00:00.000Z', '2026-05-02T04:00:00.000Z'],
        ['2026-05-03T02:00:00.000Z', '2026-05-03T04:00:00.000Z'],
      ]);
    });

    it('counts the duration in elapsed time when the clocks fall back during an occurrence', () => {
      // Berlin, 2026-10-25: 02:00 CEST (00:00Z) plus three hours is 04:00 CET (03:00Z), not 05:00.
      expect(listed(recurring('0 2 * * 0', 180, 'Europe/Berlin'), '2026-10-24T00:00:00Z', 2)).to.deep.equal([
        ['2026-10-25T00:00:00.000Z', '2026-10-25T03:00:00.000Z'],
        ['2026-11-01T01:00:00.000Z', '2026-11-01T04:00:00.000Z'],
      ]);
    });

    it('lists a one-off window until it ends, then nothing', () => {
      const w = oneOff('2026-05-01T10:00:00Z', '2026-05-01T11:00:00Z');
      expect(listed(w, '2026-04-01T00:00:00Z')).to.deep.equal([['2026-05-01T10:00:00.000Z', '2026-05-01T11:00:00.000Z']]);
      expect(listed(w, '2026-05-01T10:59:59Z')).to.have.length(1);
      expect(listed(w, '2026-05-01T11:00:00Z')).to.deep.equal([]);
    });
  });

  describe('isOpenAt', () => {
    it('is open from the start of an occurrence to just before its end', () => {
      const w = recurring('30 2 * * 0', 60, 'America/New_York');
      // 2026-03-08: 02:30 does not exist in New York; the occurrence opens at 03:00 EDT (07:00Z).
      expect(isOpenAt(w, at('2026-03-08T06:59:59Z'))).to.equal(false);
      expect(isOpenAt(w, at('2026-03-08T07:00:00Z'))).to.equal(true);
      expect(isOpenAt(w, at('2026-03-08T07:59:59.999Z'))).to.equal(true);
      expect(isOpenAt(w, at('2026-03-08T08:00:00Z'))).to.equal(false);
      // A week later in EDT: 02:30 is 06:30Z.
      expect(isOpenAt(w, at('2026-03-15T06:30:00Z'))).to.equal(true);
      expect(isOpenAt(w, at('2026-03-15T07:35:00Z'))).to.equal(false);
    });

    it('is open while any of overlapping occurrences is', () => {
      const w = recurring('0 * * * *', 90);
      for (const minute of ['00', '29', '45', '59']) expect(isOpenAt(w, at(`2026-05-01T10:${minute}:00Z`)), minute).to.equal(true);
    });

    it('reads a one-off window as its own range', () => {
      const w = oneOff('2026-05-01T10:00:00Z', '2026-05-01T11:00:00Z');
      expect([isOpenAt(w, at('2026-05-01T09:59:59Z')), isOpenAt(w, at('2026-05-01T10:00:00Z')), isOpenAt(w, at('2026-05-01T11:00:00Z'))]).to.deep.equal([false, true, false]);
    });
  });

  describe('timingAfterUpdate', () => {
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (err) {
        expect(err).to.be.instanceOf(AppError);
        return (err as AppError).extra.details?.[0]?.path;
      }
      throw new Error('expected a refusal');
    };
    const once = oneOff('2026-05-01T10:00:00Z', '2026-05-01T11:00:00Z');
    const weekly = recurring('0 3 * * 0', 60, 'Europe/Berlin');

    it('switches form when given a complete other form, or completes it from the stored one', () => {
      expect(timingAfterUpdate(once, { schedule: '0 4 * * *', duration_minutes: 30 })).to.deep.equal(recurring('0 4 * * *', 30));
      expect(timingAfterUpdate(weekly, { starts_at: '2026-06-01T00:00:00Z', ends_at: '2026-06-01T01:00:00Z' })).to.deep.equal(oneOff('2026-06-01T00:00:00Z', '2026-06-01T01:00:00Z'));
      expect(timingAfterUpdate(weekly, { schedule: '0 4 * * *' })).to.deep.equal(recurring('0 4 * * *', 60, 'Europe/Berlin'));
      expect(timingAfterUpdate(weekly, { name: 'renamed' })).to.deep.equal(weekly);
      expect(timingAfterUpdate(once, { ends_at: '2026-05-01T12:00:00Z' })).to.deep.equal(oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'));
    });

    it('names the field a switch lacks, or one set to null', () => {
      expect(refusal(() => timingAfterUpdate(once, { schedule: '0 4 * * *' }))).to.equal('duration_minutes');
      expect(refusal(() => timingAfterUpdate(once, { duration_minutes: 30 }))).to.equal('schedule');
      expect(refusal(() => timingAfterUpdate(weekly, { starts_at: '2026-06-01T00:00:00Z' }))).to.equal('ends_at');
      expect(refusal(() => timingAfterUpdate(weekly, { schedule: null }))).to.equal('schedule');
      expect(refusal(() => timingAfterUpdate(once, { starts_at: null }))).to.equal('starts_at');
      expect(refusal(() => timingAfterUpdate(once, { starts_at: '2026-05-01T11:30:00Z' }))).to.equal('ends_at');
    });
  });
});
