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

describe('disk spool', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const open = (maxBytes = 1024 * 1024, logger = silent) => DiskSpool.open(dir, { maxBytes, logger });
  const batchFiles = () => readdirSync(dir).filter((f) => f.startsWith('batch-')).sort();

  describe('append', () => {
    it('writes the results appended since the last flush to current.jsonl together, one JSON line each', async () => {
      const spool = open();
      const [a, b] = [result(), result()];
      spool.append(a);
      spool.append(b);
      expect(spool.stats()).to.include({ batches: 0, results: 2 });
      await spool.flush();
      expect(readFileSync(path.join(dir, 'current.jsonl'), 'utf8')).to.equal(`${JSON.stringify(a)}\n${JSON.stringify(b)}\n`);
      await spool.close();
    });

    it('flushes on its own within flushDelayMs', async () => {
      const spool = DiskSpool.open(dir, { maxBytes: 1024 * 1024, logger: silent, flushDelayMs: 10 });
      const a = result();
      spool.append(a);
      const current = path.join(dir, 'current.jsonl');
      await poll(() => readFileSync(current, 'utf8') === `${JSON.stringify(a)}\n`, { what: 'the timed flush' });
      await spool.close();
    });
  });

  describe('seal', () => {
    it('moves the pending results into batch-<seq>-<batchId>.jsonl, written once', async () => {
      const spool = open();
      spool.append(result());
      spool.append(result());
      const batch = (await spool.seal())!;
      expect(batchFiles()).to.deep.equal([`batch-000000000001-${batch.batchId}.jsonl`]);
      expect(existsSync(path.join(dir, 'current.jsonl')), 'current.jsonl became the batch').to.equal(false);
      expect(batch.results).to.have.length(2);
      expect(await spool.seal(), 'nothing left to seal').to.equal(null);
    });

    it('takes the pending results at once and lists the batch only when its file is durable', async () => {
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
      expect(readFileSync(batch.file, 'utf8')).to.equal(`${JSON.stringify(a)}\n`);
      await spool.flush();
      expect(idsOf(open()), 'both survive a crash, each in its own place').to.deep.equal([a.id, b.id]);
    });

    it('keeps the results pending when the disk fails the seal, and seals them with the next one', async () => {
      const logged: string[] = [];
      const spool = open(1024 * 1024, pino({ level: 'error' }, { write: (line: string) => void logged.push(line) }));
      const [a, b] = [result(), result()];
      spool.append(a);
      rmSync(dir, { recursive: true, force: true });
      expect(await spool.seal()).to.equal(null);
      expect(logged.some((line) => line.includes('sealing a spool batch failed'))).to.equal(true);
      expect(spool.pendingCount()).to.equal(1);
      mkdirSync(dir);
      spool.append(b);
      const batch = (await spool.seal())!;
      expect(batch.results.map((r) => r.id)).to.deep.equal([a.id, b.id]);
      expect(idsOf(open())).to.deep.equal([a.id, b.id]);
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

    it('skips a line torn by a crash instead of failing', async () => {
      const spool = open();
      const a = result();
      spool.append(a);
      await spool.close();
      appendFileSync(path.join(dir, 'current.jsonl'), '{"id":"half-writ');
      const reopened = open();
      expect(reopened.stats().results).to.equal(1);
      expect(idsOf(reopened)).to.deep.equal([a.id]);
    });

    it('reads a result spooled before `degraded` existed as not degraded, and a degraded one as degraded', () => {
      const { degraded: _, ...old } = result();
      const yellow = { ...result(), degraded: true };
      writeFileSync(path.join(dir, 'current.jsonl'), `${JSON.stringify(old)}\n${JSON.stringify(yellow)}\n`);
      const [first, second] = open().sealed()[0]!.results;
      expect(first).to.deep.equal({ ...old, degraded: false });
      expect(second).to.deep.equal(yellow);
    });

    it('loads a result only once when a crash came between sealing and emptying current.jsonl', async () => {
      const spool = open();
      const a = result();
      spool.append(a);
      await spool.flush();
      const current = readFileSync(path.join(dir, 'current.jsonl'));
      await spool.seal();
      writeFileSync(path.join(dir, 'current.jsonl'), current);
      expect(idsOf(open())).to.deep.equal([a.id]);
    });

    it('drops an unfinished batch write and a batch with nothing readable in it', async () => {
      const spool = open();
      const a = result();
      spool.append(a);
      await spool.seal();
      writeFileSync(path.join(dir, `batch-000000000002-${randomUUID()}.jsonl.tmp`), '{"id":');
      writeFileSync(path.join(dir, `batch-000000000003-${randomUUID()}.jsonl`), '{"id":');
      const reopened = open();
      expect(reopened.sealed()).to.have.length(1);
      expect(readdirSync(dir).filter((f) => f.startsWith('batch-'))).to.have.length(1);
      reopened.append(result());
      expect((await reopened.seal())!.seq, 'sequence numbers never go back').to.equal(4);
    });
  });

  describe('acknowledge', () => {
    it('deletes the batch file and forgets its results', async () => {
      const spool = open();
      spool.append(result());
      const batch = (await spool.seal())!;
      expect(spool.acknowledge(batch.batchId)).to.equal(true);
      await spool.idle();
      expect(batchFiles()).to.deep.equal([]);
      expect(spool.stats()).to.deep.equal({ batches: 0, results: 0, bytes: 0, evictedResults: 0 });
      expect(spool.acknowledge(batch.batchId), 'a repeated ack is harmless').to.equal(false);
    });
  });

  describe('stats', () => {
    it('counts batches, results and bytes on disk', async () => {
      const spool = open();
      for (let i = 0; i < 3; i++) spool.append(result());
      await spool.seal();
      spool.append(result());
      await spool.close();
      const bytes = [...batchFiles().map((f) => path.join(dir, f)), path.join(dir, 'current.jsonl')].reduce((n, f) => n + readFileSync(f).length, 0);
      expect(spool.stats()).to.deep.equal({ batches: 1, results: 4, bytes, evictedResults: 0 });
    });
  });

  describe('eviction', () => {
    it('evicts the oldest batches when over its size, logs it and counts what it dropped', async () => {
      const logged: string[] = [];
      const spool = open(2_000, pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) }));
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
      expect(spool.sealed().map((b) => b.batchId), 'the newest batches are kept').to.deep.equal(batches.slice(-spool.sealed().length).map((b) => b.batchId));
      expect(batchFiles()).to.have.length(spool.sealed().length);
      expect(logged.some((line) => line.includes('spool full'))).to.equal(true);
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
