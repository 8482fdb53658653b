import { expect } from 'chai';
import { coverWindow, coverWindowByHours, type RollupSpan } from '../../../control-plane/src/features/checks/rollup-window.js';

const at = (iso: string) => new Date(iso);
const show = (spans: RollupSpan[]) => spans.map((s) => `${s.tier} ${s.from.toISOString()} ${s.to.toISOString()}`);

describe('rollup windows', () => {
  it('covers a short window with minutes only, including the minutes holding either end', () => {
    expect(show(coverWindow(at('2026-11-22T10:05:30Z'), at('2026-11-22T10:40:10Z')))).to.deep.equal([
      'minute 2026-11-22T10:05:00.000Z 2026-11-22T10:41:00.000Z',
    ]);
  });

  it('covers a day with minutes, hours, then minutes', () => {
    expect(show(coverWindow(at('2026-11-21T10:05:30Z'), at('2026-11-22T10:05:30Z')))).to.deep.equal([
      'minute 2026-11-21T10:05:00.000Z 2026-11-21T11:00:00.000Z',
      'hour 2026-11-21T11:00:00.000Z 2026-11-22T10:00:00.000Z',
      'minute 2026-11-22T10:00:00.000Z 2026-11-22T10:06:00.000Z',
    ]);
  });

  it('covers 90 days with whole days in the middle and at most a day of hours and minutes at each edge', () => {
    const to = at('2026-11-22T10:05:30Z');
    const spans = coverWindow(new Date(to.getTime() - 90 * 86_400_000), to);
    expect(show(spans)).to.deep.equal([
      'minute 2026-08-24T10:05:00.000Z 2026-08-24T11:00:00.000Z',
      'hour 2026-08-24T11:00:00.000Z 2026-08-25T00:00:00.000Z',
      'day 2026-08-25T00:00:00.000Z 2026-11-22T00:00:00.000Z',
      'hour 2026-11-22T00:00:00.000Z 2026-11-22T10:00:00.000Z',
      'minute 2026-11-22T10:00:00.000Z 2026-11-22T10:06:00.000Z',
    ]);
    // No gaps, no overlaps.
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.from.getTime()).to.equal(spans[i - 1]!.to.getTime());
  });

  it('leaves out empty edges when the window starts or ends on a boundary', () => {
    expect(show(coverWindow(at('2026-11-20T00:00:00Z'), at('2026-11-21T22:59:30Z')))).to.deep.equal([
      'day 2026-11-20T00:00:00.000Z 2026-11-21T00:00:00.000Z',
      'hour 2026-11-21T00:00:00.000Z 2026-11-21T23:00:00.000Z',
    ]);
    expect(show(coverWindow(at('2026-11-20T00:00:00Z'), at('2026-11-21T23:59:00Z')))).to.deep.equal([
      'day 2026-11-20T00:00:00.000Z 2026-11-22T00:00:00.000Z',
    ]);
  });

  it('covers by hours and days only when minutes are not wanted, the hours at either end whole', () => {
    expect(show(coverWindowByHours(at('2026-11-20T10:05:30Z'), at('2026-11-22T10:05:30Z')))).to.deep.equal([
      'hour 2026-11-20T10:00:00.000Z 2026-11-21T00:00:00.000Z',
      'day 2026-11-21T00:00:00.000Z 2026-11-22T00:00:00.000Z',
      'hour 2026-11-22T00:00:00.000Z 2026-11-22T11:00:00.000Z',
    ]);
  });
});
