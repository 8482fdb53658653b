import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { encodeResults, resultsMessage, type SpooledResult } from '../../../agent/src/spool/encoded-results.js';
import { readRecords, releaseRecord, resultsRecord, sealRecord } from '../../../agent/src/spool/spool-records.js';
import { AgentMessage } from '../../../shared/src/gen/agent.js';

const result = (over: Partial<SpooledResult> = {}): SpooledResult => ({
  id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 3, ok: true, degraded: false, responseTimeMs: 12.5, message: 'HTTP 200 in 12 ms',
  checkedAtMs: 1_790_000_000_123, details: { status_code: 200, connect_ms: 0.4, tls_subject: 'CN=x', nested: { list: [1, 'two', true, null] } }, adHoc: false, ...over,
});

describe('spool encoding', () => {
  describe('resultsMessage', () => {
    it('is the AgentMessage the generated code would encode for the batch, from results encoded in several parts', () => {
      const results = [result(), result({ ok: false, message: 'refused', details: {} }), result({ degraded: true, adHoc: true })];
      const encoded = Buffer.concat([encodeResults(results.slice(0, 1)), encodeResults(results.slice(1))]);
      const bytes = resultsMessage('batch-1', encoded);
      expect(AgentMessage.decode(bytes)).to.deep.equal({ payload: { $case: 'results', value: { batchId: 'batch-1', results } } });
      expect(Buffer.from(bytes).equals(Buffer.from(AgentMessage.encode({ payload: { $case: 'results', value: { batchId: 'batch-1', results } } }).finish()))).to.equal(true);
    });
  });

  describe('records', () => {
    const encoded = Buffer.from(encodeResults([result(), result()]));
    const records = Buffer.concat([resultsRecord(2, encoded), sealRecord('batch-1', 7), releaseRecord('batch-0')]);

    it('read back as written', () => {
      expect(readRecords(records)).to.deep.equal({
        records: [
          { kind: 'results', count: 2, encoded },
          { kind: 'seal', seq: 7, batchId: 'batch-1' },
          { kind: 'release', batchId: 'batch-0' },
        ],
        intactBytes: records.length,
      });
    });

    it('end at a record cut short, at any byte', () => {
      const first = resultsRecord(2, encoded).length;
      for (const cut of [1, 8, first - 1, first + 3]) {
        const { records: read, intactBytes } = readRecords(records.subarray(0, cut));
        expect(read.length, `cut at ${cut}`).to.equal(cut < first ? 0 : 1);
        expect(intactBytes).to.equal(cut < first ? 0 : first);
      }
    });

    it('end at a record whose bytes fail the checksum, and at an unknown kind', () => {
      const flipped = Buffer.from(records);
      flipped[20]! ^= 0xff;
      expect(readRecords(flipped)).to.deep.equal({ records: [], intactBytes: 0 });
      const unknown = Buffer.from(records);
      unknown[0] = 9;
      expect(readRecords(unknown).records).to.deep.equal([]);
    });
  });
});
