import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { DiskSpool, type SpooledResult } from '../../../agent/src/spool/disk-spool.js';
import { encodeResults } from '../../../agent/src/spool/encoded-results.js';
import { readRecords, type SpoolRecord } from '../../../agent/src/spool/spool-records.js';
import { poll } from '../../support/poll.js';
import { decodeResults, resultsOf } from '../../support/spooled-results.js';

const silent = pino({ level: 'silent' });
const result = (): SpooledResult => ({ id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 1, ok: true, degraded: false, speedJudged: false, responseTimeMs: 5, message: 'ok', checkedAtMs: Date.now(), details: { connect_ms: 1 }, adHoc: false });
const idsOf = (spool: DiskSpool) => spool.sealed().flatMap((b) => resultsOf(b).map((r) => r.id));
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
/** A segment's records, each as its kind and what names it: the result ids, the batch. */
const describeRecords = (records: SpoolRecord[]) =>
  records.map((r) => (r.kind === 'results' ? { results: decodeResults(r.encoded).map((x) => x.id) } : r.kind === 'seal' ? { seal: r.batchId, seq: r.seq } : { done: r.batchId }));

describe('disk spool', () => {
  let dir: string;
  let opened: DiskSpool[];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
    opened = [];
  });
  // A spool may still be writing (an eviction on open, a release) when a test ends: the folder
  // goes once every spool's file operations have settled.
  afterEach(async () => {
    await Promise.all(opened.map((spool) => spool.idle()));
    rmSync(dir, { recursive: true, force: true });
  });
  const track = (spool: DiskSpool) => (opened.push(spool), spool);
  const open = (maxBytes = 1024 * 1024, logger = silent) => track(DiskSpool.open(dir, { maxBytes, logger }));
  const segments = () => readdirSync(dir).filter((f) => f.startsWith('segment-')).sort();
  const segmentRecords = (name: string) => describeRecords(readRecords(readFileSync(path.join(dir, name))).records);
  const bytesOnDisk = () => readdirSync(dir).reduce((n, f) => n + readFileSync(path.join(dir, f)).length, 0);

  describe('append', () => {
    it('writes the results appended since the last flush together, as one record', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      spool.append(b);
      expect(spool.stats()).to.include({ batches: 0, results: 2 });
      await spool.flush();
      expect(segments()).to.deep.equal(['segment-000000000001.spool']);
      expect(segmentRecords(segments()[0]!)).to.deep.equal([{ results: [a.id, b.id] }]);
      await spool.close();
    });

    it('flushes on its own within flushDelayMs', async () => {
      const spool = track(DiskSpool.open(dir, { maxBytes: 1024 * 1024, logger: silent, flushDelayMs: 10 }));
      const a = result();
      spool.append(a);
      await poll(() => segments().length === 1 && segmentRecords(segments()[0]!).length === 1, { what: 'the timed flush' });
      expect(segmentRecords(segments()[0]!)).to.deep.equal([{ results: [a.id] }]);
      await spool.close();
    });
  });

  describe('seal', () => {
    it('appends the pending results and the seal naming the batch, in one write', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      spool.append(b);
      const batch = (await spool.seal())!;
      expect(batch).to.include({ seq: 1, count: 2 });
      expect(resultsOf(batch)).to.deep.equal([a, b]);
      expect(segmentRecords(segments()[0]!)).to.deep.equal([{ results: [a.id, b.id] }, { seal: batch.batchId, seq: 1 }]);
      expect(await spool.seal(), 'nothing left to seal').to.equal(null);
    });

    it('seals results flushed earlier with those appended since', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      await spool.flush();
      spool.append(b);
      const batch = (await spool.seal())!;
      expect(resultsOf(batch).map((r) => r.id)).to.deep.equal([a.id, b.id]);
      expect(segmentRecords(segments()[0]!), 'a written once').to.deep.equal([{ results: [a.id] }, { results: [b.id] }, { seal: batch.batchId, seq: 1 }]);
    });

    it('takes the pending results at once and lists the batch only when its seal is durable', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      const sealing = spool.seal();
      expect(spool.pendingCount(), 'later results go to the next batch').to.equal(0);
      expect(spool.sealed(), 'not listed (so not sent) before it is on disk').to.deep.equal([]);
      expect(spool.stats().results, 'still counted while being written').to.equal(1);
      spool.append(b);
      const batch = (await sealing)!;
      expect(spool.sealed()).to.deep.equal([batch]);
      expect(resultsOf(batch)).to.deep.equal([a]);
      await spool.flush();
      const reopened = open();
      expect(reopened.sealed().map((s) => resultsOf(s).map((r) => r.id)), 'both survive a crash, each in its own batch').to.deep.equal([[a.id], [b.id]]);
    });

    it('keeps the results pending when the disk fails the seal, and seals them with the next one', async () => {
      const logged: string[] = [];
      const spool = open(1024 * 1024, pino({ level: 'error' }, { write: (text: string) => void logged.push(text) }));
      const [a, b] = [result(), result()];
      spool.append(a);
      rmSync(dir, { recursive: true, force: true });
      expect(await spool.seal()).to.equal(null);
      expect(logged.some((text) => text.includes('sealing a spool batch failed'))).to.equal(true);
      expect(spool.pendingCount()).to.equal(1);
      mkdirSync(dir);
      spool.append(b);
      const batch = (await spool.seal())!;
      expect(resultsOf(batch).map((r) => r.id)).to.deep.equal([a.id, b.id]);
      expect(idsOf(open())).to.deep.equal([a.id, b.id]);
    });

    it('cuts off what a failed write left before it writes again', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      const first = (await spool.seal())!;
      // As a write the disk stopped part-way would leave it: the spool only learns it failed.
      const file = path.join(dir, segments()[0]!);
      const intact = readFileSync(file).length;
      appendFileSync(file, Buffer.from([1, 200, 0, 0, 0, 1, 2]));
      (spool as unknown as { tornAt: number }).tornAt = intact;
      spool.append(b);
      const second = (await spool.seal())!;
      expect(segmentRecords(segments()[0]!)).to.deep.equal([{ results: [a.id] }, { seal: first.batchId, seq: 1 }, { results: [b.id] }, { seal: second.batchId, seq: 2 }]);
    });

    it('starts a new segment once one is full, and deletes a full one whose batches are all released', async () => {
      // A spool of 4,000 bytes closes its segments at 1,000.
      const spool = open(4_000);
      const sealTen = async () => {
        for (let i = 0; i < 10; i++) spool.append(result());
        return (await spool.seal())!;
      };
      const first = await sealTen();
      const second = await sealTen();
      expect(segments()).to.deep.equal(['segment-000000000001.spool', 'segment-000000000002.spool']);
      spool.acknowledge(first.batchId);
      await spool.idle();
      expect(segments()).to.deep.equal(['segment-000000000002.spool']);
      spool.acknowledge(second.batchId);
      await spool.idle();
      expect(segments()).to.deep.equal([]);
    });
  });

  describe('acknowledge', () => {
    it('forgets the batch, and the next write records it so that a restart does not send it again', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      const batch = (await spool.seal())!;
      expect(spool.acknowledge(batch.batchId)).to.equal(true);
      expect(spool.stats()).to.deep.equal({ batches: 0, results: 0, bytes: 0, evictedResults: 0 });
      expect(spool.acknowledge(batch.batchId), 'a repeated ack is harmless').to.equal(false);
      spool.append(b);
      await spool.flush();
      expect(segmentRecords(segments()[0]!)).to.deep.equal([{ results: [a.id] }, { seal: batch.batchId, seq: 1 }, { done: batch.batchId }, { results: [b.id] }]);
      expect(idsOf(open())).to.deep.equal([b.id]);
    });

    it('records the release on close', async () => {
      const spool = open();
      spool.append(result());
      const batch = (await spool.seal())!;
      spool.acknowledge(batch.batchId);
      await spool.close();
      expect(open().stats().results).to.equal(0);
    });
  });

  describe('open', () => {
    it('keeps sealed and unsealed results across a reopen, oldest first, until acknowledged', async () => {
      const first = open();
      const a = result();
      const b = result();
      first.append(a);
      const batch = (await first.seal())!;
      first.append(b);
      await first.close();
      const reopened = open();
      expect(idsOf(reopened)).to.deep.equal([a.id, b.id]);
      expect(reopened.sealed()[0]!.batchId, 'a re-send reuses the batch id').to.equal(batch.batchId);
      expect(resultsOf(reopened.sealed()[0]!)).to.deep.equal([a]);
      expect(reopened.acknowledge(batch.batchId)).to.equal(true);
      await reopened.idle();
      expect(idsOf(open())).to.deep.equal([b.id]);
    });

    it('seals what a crash left unsealed where it lies, and loads it once however often it reopens', async () => {
      const spool = open();
      const [x, a] = [result(), result()];
      spool.append(x);
      const sealed = (await spool.seal())!;
      spool.append(a);
      await spool.flush();
      const once = open();
      expect(once.sealed().map((b) => resultsOf(b).map((r) => r.id))).to.deep.equal([[x.id], [a.id]]);
      expect(segments()).to.deep.equal(['segment-000000000001.spool']);
      expect(segmentRecords(segments()[0]!)).to.deep.equal([{ results: [x.id] }, { seal: sealed.batchId, seq: 1 }, { results: [a.id] }, { seal: once.sealed()[1]!.batchId, seq: 2 }]);
      const twice = open();
      expect(twice.sealed().map((b) => b.batchId)).to.deep.equal(once.sealed().map((b) => b.batchId));
    });

    it('cuts off a record torn by a crash, keeps what came before it, and writes to a segment of its own', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      await spool.close();
      const file = path.join(dir, segments()[0]!);
      const intact = readFileSync(file).length;
      appendFileSync(file, Buffer.from([1, 200, 0, 0, 0, 1, 2]));
      const reopened = open();
      expect(readFileSync(file).length, 'the torn record is gone, a seal is in its place').to.be.greaterThan(intact);
      expect(idsOf(reopened)).to.deep.equal([a.id]);
      reopened.append(b);
      await reopened.seal();
      expect(segments()).to.have.length(2);
      expect(idsOf(open())).to.deep.equal([a.id, b.id]);
    });

    it('continues the sequence numbers of the batches it loaded', async () => {
      const spool = open();
      for (let i = 0; i < 3; i++) {
        spool.append(result());
        await spool.seal();
      }
      await spool.close();
      const reopened = open();
      reopened.append(result());
      expect((await reopened.seal())!.seq).to.equal(4);
    });
  });

  describe('the JSON-lines segments of the previous version', () => {
    it('moves the batches not released, under their ids, and what was unsealed, into a segment of its own, once', async () => {
      const [a, b, c] = [result(), result(), result()];
      const [released, kept] = [randomUUID(), randomUUID()];
      writeFileSync(path.join(dir, 'segment-000000000001.jsonl'), line(a) + line({ seal: released, seq: 1 }) + line(b) + line({ seal: kept, seq: 2 }));
      writeFileSync(path.join(dir, 'segment-000000000002.jsonl'), line({ done: released }) + line(c) + '{"id":"half-writ');
      const spool = open();
      expect(spool.sealed().map((s) => [s.seq, s.batchId, resultsOf(s)])).to.deep.equal([
        [2, kept, [b]],
        [3, spool.sealed()[1]!.batchId, [c]],
      ]);
      expect(segments()).to.deep.equal(['segment-000000000001.spool']);
      expect(idsOf(open()), 'loaded once').to.deep.equal([b.id, c.id]);
      spool.acknowledge(kept);
      await spool.idle();
      expect(idsOf(open())).to.deep.equal([c.id]);
    });
  });

  describe('the earlier layout (batch files and current.jsonl)', () => {
    const legacyBatch = (seq: number, results: unknown[], batchId = randomUUID()) => {
      writeFileSync(path.join(dir, `batch-${String(seq).padStart(12, '0')}-${batchId}.jsonl`), results.map(line).join(''));
      return batchId;
    };

    it('moves its batches under their ids, and current.jsonl as a batch of its own, into a segment, and deletes their files', async () => {
      const [a, b] = [result(), result()];
      const batchId = legacyBatch(7, [a]);
      writeFileSync(path.join(dir, 'current.jsonl'), line(b));
      const spool = open();
      expect(spool.sealed().map((s) => [s.seq, s.batchId, resultsOf(s).map((r) => r.id)])).to.deep.equal([
        [7, batchId, [a.id]],
        [8, spool.sealed()[1]!.batchId, [b.id]],
      ]);
      expect(readdirSync(dir)).to.deep.equal(['segment-000000000001.spool']);
      spool.acknowledge(batchId);
      await spool.idle();
      expect(idsOf(open())).to.deep.equal([b.id]);
    });

    it('reads a result spooled before `degraded` existed as not degraded, and a degraded one as degraded', () => {
      const { degraded: _, ...old } = result();
      const yellow = { ...result(), degraded: true };
      writeFileSync(path.join(dir, 'current.jsonl'), line(old) + line(yellow));
      const [first, second] = resultsOf(open().sealed()[0]!);
      expect(first).to.deep.equal({ ...old, degraded: false });
      expect(second).to.deep.equal(yellow);
    });

    it('loads a result only once when a crash came between sealing and emptying current.jsonl', () => {
      const a = result();
      legacyBatch(1, [a]);
      writeFileSync(path.join(dir, 'current.jsonl'), line(a));
      expect(idsOf(open())).to.deep.equal([a.id]);
    });

    it('drops an unfinished batch write and a batch with nothing readable in it', async () => {
      legacyBatch(1, [result()]);
      writeFileSync(path.join(dir, `batch-000000000002-${randomUUID()}.jsonl.tmp`), '{"id":');
      writeFileSync(path.join(dir, `batch-000000000003-${randomUUID()}.jsonl`), '{"id":');
      const spool = open();
      expect(spool.sealed()).to.have.length(1);
      expect(readdirSync(dir)).to.deep.equal(['segment-000000000001.spool']);
      spool.append(result());
      expect((await spool.seal())!.seq, 'sequence numbers never go back').to.equal(4);
    });
  });

  describe('stats', () => {
    it('counts batches, results and their encoded bytes', async () => {
      const spool = open();
      const results = [result(), result(), result(), result()];
      for (const r of results.slice(0, 3)) spool.append(r);
      await spool.seal();
      spool.append(results[3]!);
      await spool.close();
      const bytes = encodeResults(results).length;
      expect(spool.stats()).to.deep.equal({ batches: 1, results: 4, bytes, evictedResults: 0 });
      expect(open().stats(), 'the same after a reopen').to.deep.equal({ batches: 2, results: 4, bytes, evictedResults: 0 });
    });
  });

  describe('eviction', () => {
    it('evicts the oldest batches when over its size, logs it, counts what it dropped and frees their disk', async () => {
      const logged: string[] = [];
      const spool = open(2_000, pino({ level: 'warn' }, { write: (text: string) => void logged.push(text) }));
      const batches = [];
      for (let i = 0; i < 10; i++) {
        for (let j = 0; j < 3; j++) spool.append(result());
        batches.push((await spool.seal())!);
      }
      await spool.idle();
      const stats = spool.stats();
      expect(stats.bytes).to.be.at.most(2_000);
      expect(stats.evictedResults).to.be.greaterThan(0);
      expect(stats.evictedResults % 3).to.equal(0);
      expect(stats.results + stats.evictedResults).to.equal(30);
      const kept = batches.slice(-spool.sealed().length).map((b) => b.batchId);
      expect(spool.sealed().map((b) => b.batchId), 'the newest batches are kept').to.deep.equal(kept);
      expect(logged.some((text) => text.includes('spool full'))).to.equal(true);
      await spool.close();
      expect(bytesOnDisk(), 'the evicted batches left the disk').to.be.at.most(2 * 2_000);
      expect(open(2_000).sealed().map((b) => b.batchId), 'and do not come back').to.deep.equal(kept);
    });

    it('evicts on open when what is on disk is over a smaller limit', async () => {
      const big = open();
      for (let i = 0; i < 10; i++) {
        for (let j = 0; j < 3; j++) big.append(result());
        await big.seal();
      }
      await big.idle();
      const small = open(2_000);
      expect(small.stats().bytes).to.be.at.most(2_000);
      expect(small.stats().evictedResults).to.be.greaterThan(0);
    });
  });
});
