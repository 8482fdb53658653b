import { expect } from 'chai';
import { decodeBacklog, encodeBacklog, rollupDeltas, type RolledResult } from '../../../control-plane/src/features/checks/rollup-deltas.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const at = (iso: string) => new Date(iso);

describe('rollup deltas', () => {
  const results: RolledResult[] = [
    { serviceId: B, checkedAt: at('2026-11-24T10:05:30Z'), status: 'GREEN', responseTimeMs: 10 },
    { serviceId: A, checkedAt: at('2026-11-24T11:00:10Z'), status: 'RED', responseTimeMs: 40 },
    { serviceId: A, checkedAt: at('2026-11-24T10:59:50Z'), status: 'YELLOW', responseTimeMs: 20.5 },
    { serviceId: B, checkedAt: at('2026-11-24T10:05:10Z'), status: 'GREEN', responseTimeMs: 30 },
  ];

  it('gives one delta per service and bucket, in service then bucket order, counting YELLOW as up', () => {
    const { minute, hour, day } = rollupDeltas(results);
    expect(minute.map((d) => [d.service_id, d.bucket, d.total_checks, d.successful_checks])).to.deep.equal([
      [A, '2026-11-24T10:59:00.000Z', 1, 1],
      [A, '2026-11-24T11:00:00.000Z', 1, 0],
      [B, '2026-11-24T10:05:00.000Z', 2, 2],
    ]);
    expect(hour.map((d) => [d.service_id, d.bucket])).to.deep.equal([
      [A, '2026-11-24T10:00:00.000Z'],
      [A, '2026-11-24T11:00:00.000Z'],
      [B, '2026-11-24T10:00:00.000Z'],
    ]);
    expect(day).to.have.length(2);
    expect(day[1]).to.include({ service_id: B, total_checks: 2, response_time_sum_ms: 40, response_time_max_ms: 30 });
    expect(day[1]!.response_histogram!.reduce((a, b) => a + b, 0)).to.equal(2);
    expect(minute[0]).to.not.have.property('response_histogram');
  });

  it('keeps in a backlog row what folding needs of each result', () => {
    const row = encodeBacklog(results);
    expect(decodeBacklog(row)).to.deep.equal(results);
    expect(rollupDeltas(decodeBacklog(row))).to.deep.equal(rollupDeltas(results));
  });
});
