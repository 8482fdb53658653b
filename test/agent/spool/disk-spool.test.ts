import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { DiskSpool, type SpooledResult } from '../../../agent/src/spool/disk-spool.js';
import { poll } from '../../support/poll.js';

const silent = pino({ level: 'silent' });
const result = (): SpooledResult => ({ id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 1, ok: true, degraded: false, responseTimeMs: 5, message: 'ok', checkedAtMs: Date.now(), details: { connect_ms: 1 }, adHoc: false });
const idsOf = (spool: DiskSpool) => spool.sealed().flatMap((b) => b.results.map((r) => r.id));
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('disk spool', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const open = (maxBytes = 1024 * 1024, logger = silent) => DiskSpool.open(dir, { maxBytes, logger });
  const segments = () => readdirSync(dir).filter((f) => f.startsWith('segment-')).sort();
  const segmentText = (name: string) => readFileSync(path.join(dir, name), 'utf8');
  const bytesOnDisk = () => readdirSync(dir).reduce((n, f) => n + readFileSync(path.join(dir, f)).length, 0);

  describe('append', () => {
    it('writes the results appended since the last flush together, one JSON line each', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      spool.append(b);
      expect(spool.stats()).to.include({ batches: 0, results: 2 });
      await spool.flush();
      expect(segments()).to.deep.equal(['segment-000000000001.jsonl']);
      expect(segmentText(segments()[0]!)).to.equal(line(a) + line(b));
      await spool.close();
    });

    it('flushes on its own within flushDelayMs', async () => {
      const spool = DiskSpool.open(dir, { maxBytes: 1024 * 1024, logger: silent, flushDelayMs: 10 });
      const a = result();
      spool.append(a);
      await poll(() => segments().length === 1 && segmentText(segments()[0]!) === line(a), { what: 'the timed flush' });
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
      expect(batch).to.include({ seq: 1 });
      expect(batch.results).to.deep.equal([a, b]);
      expect(segmentText(segments()[0]!)).to.equal(line(a) + line(b) + line({ seal: batch.batchId, seq: 1 }));
      expect(await spool.seal(), 'nothing left to seal').to.equal(null);
    });

    it('seals results flushed earlier with those appended since', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      await spool.flush();
      spool.append(b);
      const batch = (await spool.seal())!;
      expect(batch.results.map((r) => r.id)).to.deep.equal([a.id, b.id]);
      expect(segmentText(segments()[0]!), 'a written once').to.equal(line(a) + line(b) + line({ seal: batch.batchId, seq: 1 }));
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
      expect(batch.results).to.deep.equal([a]);
      await spool.flush();
      const reopened = open();
      expect(reopened.sealed().map((s) => s.results.map((r) => r.id)), 'both survive a crash, each in its own batch').to.deep.equal([[a.id], [b.id]]);
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
      expect(batch.results.map((r) => r.id)).to.deep.equal([a.id, b.id]);
      expect(idsOf(open())).to.deep.equal([a.id, b.id]);
    });

    it('starts a new segment once one is full, and deletes a full one whose batches are all released', async () => {
      // A spool of 4,000 bytes closes its segments at 1,000.
      const spool = open(4_000);
      const sealFive = async () => {
        for (let i = 0; i < 5; i++) spool.append(result());
        return (await spool.seal())!;
      };
      const first = await sealFive();
      const second = await sealFive();
      expect(segments()).to.deep.equal(['segment-000000000001.jsonl', 'segment-000000000002.jsonl']);
      spool.acknowledge(first.batchId);
      await spool.idle();
      expect(segments()).to.deep.equal(['segment-000000000002.jsonl']);
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
      expect(segmentText(segments()[0]!)).to.equal(line(a) + line({ seal: batch.batchId, seq: 1 }) + line({ done: batch.batchId }) + line(b));
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
      expect(reopened.sealed()[0]!.results[0]).to.deep.equal(a);
      expect(reopened.acknowledge(batch.batchId)).to.equal(true);
      await reopened.idle();
      expect(idsOf(open())).to.deep.equal([b.id]);
    });

    it('seals what a crash left unsealed into a segment of its own, and loads it once however often it reopens', async () => {
      const spool = open();
      const [x, a] = [result(), result()];
      spool.append(x);
      const sealed = (await spool.seal())!;
      spool.append(a);
      await spool.flush();
      const once = open();
      expect(once.sealed().map((b) => b.results.map((r) => r.id))).to.deep.equal([[x.id], [a.id]]);
      expect(segments(), 'the first segment still holds a live batch').to.have.length(2);
      const twice = open();
      expect(twice.sealed().map((b) => b.batchId)).to.deep.equal(once.sealed().map((b) => b.batchId));
      expect(twice.sealed()[0]!.batchId).to.equal(sealed.batchId);
    });

    it('never appends to a segment a previous run left, so a torn last line stays alone', async () => {
      const spool = open();
      const a = result();
      spool.append(a);
      await spool.seal();
      await spool.close();
      appendFileSync(path.join(dir, segments()[0]!), '{"id":"half-writ');
      const reopened = open();
      const b = result();
      reopened.append(b);
      await reopened.seal();
      expect(segments()).to.have.length(2);
      expect(idsOf(open())).to.deep.equal([a.id, b.id]);
    });

    it('skips a line torn by a crash instead of failing', async () => {
      const spool = open();
      const a = result();
      spool.append(a);
      await spool.close();
      appendFileSync(path.join(dir, segments()[0]!), '{"id":"half-writ');
      const reopened = open();
      expect(reopened.stats().results).to.equal(1);
      expect(idsOf(reopened)).to.deep.equal([a.id]);
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

  describe('the earlier layout (batch files and current.jsonl)', () => {
    const legacyBatch = (seq: number, results: unknown[], batchId = randomUUID()) => {
      writeFileSync(path.join(dir, `batch-${String(seq).padStart(12, '0')}-${batchId}.jsonl`), results.map(line).join(''));
      return batchId;
    };

    it('loads its batches under their ids, deletes a batch file once acknowledged, and seals current.jsonl anew', async () => {
      const [a, b] = [result(), result()];
      const batchId = legacyBatch(7, [a]);
      writeFileSync(path.join(dir, 'current.jsonl'), line(b));
      const spool = open();
      expect(spool.sealed().map((s) => [s.seq, s.batchId, s.results.map((r) => r.id)])).to.deep.equal([
        [7, batchId, [a.id]],
        [8, spool.sealed()[1]!.batchId, [b.id]],
      ]);
      expect(existsSync(path.join(dir, 'current.jsonl'))).to.equal(false);
      spool.acknowledge(batchId);
      await spool.idle();
      expect(readdirSync(dir).filter((f) => f.startsWith('batch-'))).to.deep.equal([]);
      expect(idsOf(open())).to.deep.equal([b.id]);
    });

    it('reads a result spooled before `degraded` existed as not degraded, and a degraded one as degraded', () => {
      const { degraded: _, ...old } = result();
      const yellow = { ...result(), degraded: true };
      writeFileSync(path.join(dir, 'current.jsonl'), line(old) + line(yellow));
      const [first, second] = open().sealed()[0]!.results;
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
      expect(readdirSync(dir).filter((f) => f.startsWith('batch-'))).to.have.length(1);
      spool.append(result());
      expect((await spool.seal())!.seq, 'sequence numbers never go back').to.equal(4);
    });
  });

  describe('stats', () => {
    it('counts batches, results and the bytes of their lines', async () => {
      const spool = open();
      const results = [result(), result(), result(), result()];
      for (const r of results.slice(0, 3)) spool.append(r);
      await spool.seal();
      spool.append(results[3]!);
      await spool.close();
      const bytes = results.reduce((n, r) => n + Buffer.byteLength(line(r)), 0);
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
