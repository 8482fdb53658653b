import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { encodeResults, resultsMessage, type SpooledResult } from '../../../agent/src/spool/encoded-results.js';
import { readRecords, releaseRecord, resultsRecord, sealRecord } from '../../../agent/src/spool/spool-records.js';
import { AgentMessage, ResultBatch, type CheckResult } from '../../../shared/src/gen/agent.js';

const result = (over: Partial<CheckResult> = {}): CheckResult => ({
  id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 3, ok: true, degraded: false, speedJudged: false, responseTimeMs: 12.5, message: 'HTTP 200 in 12 ms',
  checkedAtMs: 1_790_000_000_123, details: { status_code: 200, connect_ms: 0.4, tls_subject: 'CN=x', nested: { list: [1, 'two', true, null] } }, adHoc: false, ...over,
});
/** A result as the agent spools a new one: without an id. */
const withoutId = (over: Partial<CheckResult> = {}): SpooledResult => {
  const { id: _, ...rest } = result(over);
  return rest;
};

describe('spool encoding', () => {
  describe('encodeResults', () => {
    const generated = (results: CheckResult[]) => Buffer.from(ResultBatch.encode({ batchId: '', results }).finish());
    const cases: Record<string, Partial<CheckResult>> = {
      'a TCP result': { message: 'connected in 0 ms', responseTimeMs: 0, details: { connect_ms: 0 } },
      'every detail kind': { details: { n: -1.5, s: 'x', t: true, f: false, z: null, gone: undefined, '': 7, '10': 'numeric key first' } },
      'empty and default fields': { id: '', serviceId: '', assignmentVersion: 0, ok: false, responseTimeMs: 0, message: '', checkedAtMs: 0, details: undefined },
      'no details at all': { details: {} },
      'text beyond ASCII, a lone surrogate and an emoji': { message: 'échec: délai dépassé — 接続 \ud800 🚨', details: { tls_subject: 'CN=bücher.example' } },
      'lengths past one varint byte': { message: 'x'.repeat(200), details: { body: 'y'.repeat(20_000) } },
      'integers past 32 bits': { assignmentVersion: 2 ** 40 + 3, checkedAtMs: Number.MAX_SAFE_INTEGER },
      'a negative time (ten bytes of varint)': { checkedAtMs: -5 },
      'nested details': { details: { redirects: [{ url: 'http://a/' }, 2], headers: { a: 'b' } } },
      'flags set': { adHoc: true, degraded: true, speedJudged: true, responseTimeMs: Number.NaN },
      'assertions and steps': {
        details: {
          status_code: 200,
          assertions: [{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP', actual: null, passed: false }],
          steps: [{ name: 'log in', ok: true, assertions: [], extracted: ['token'], response: { headers: {}, body: 'x'.repeat(300) } }],
        },
      },
      'nesting past what probers make, and undefined inside (the generated path)': { details: { deep: [[[[[[[1]]]]]]], hole: { a: undefined, b: 1 }, when: new Date(0) as never } },
    };
    for (const [name, over] of Object.entries(cases)) {
      it(`writes ${name} byte for byte as the generated encoder`, () => {
        const results = [result(), result(over), result()];
        expect(encodeResults(results).toString('hex')).to.equal(generated(results).toString('hex'));
      });
    }

    it('gives a result without an id a fresh version 4 UUID, by hand and through the generated encoder alike', () => {
      const results = [withoutId(), withoutId({ checkedAtMs: -1 }), withoutId()];
      const ids = ResultBatch.decode(encodeResults(results)).results.map((r) => r.id);
      for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(ids).size).to.equal(3);
      const many = ResultBatch.decode(encodeResults(Array.from({ length: 600 }, () => withoutId()))).results;
      expect(new Set(many.map((r) => r.id)).size, 'ids across refills of the random pool').to.equal(600);
    });

    it('of no results is empty', () => {
      expect(encodeResults([]).length).to.equal(0);
    });

    it('decodes back to the results', () => {
      const results = [result(), result({ ok: false, message: 'refused', details: {} })];
      expect(ResultBatch.decode(encodeResults(results)).results).to.deep.equal(results);
    });
  });

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
