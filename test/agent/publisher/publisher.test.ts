import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createPublisher, type Publisher, type PublisherOptions } from '../../../agent/src/publisher/publisher.js';
import { DiskSpool, type SealedBatch } from '../../../agent/src/spool/disk-spool.js';
import { poll } from '../../support/poll.js';
import { resultsOf } from '../../support/spooled-results.js';

const result = () => ({ id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 1, ok: true, degraded: false, speedJudged: false, responseTimeMs: 1, message: 'ok', checkedAtMs: Date.now(), details: {}, adHoc: false });

describe('publisher', () => {
  let dir: string;
  let spool: DiskSpool;
  let sent: SealedBatch[];
  let publisher: Publisher | undefined;
  const make = (options: Partial<PublisherOptions> = {}) => {
    publisher = createPublisher({ spool, send: (b) => (sent.push(b), true), ...options });
    return publisher;
  };
  /** Lets the spool finish writing, and the publisher send what became durable. */
  const settled = async () => {
    await spool.idle();
    await new Promise((resolve) => setImmediate(resolve));
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-publisher-'));
    spool = DiskSpool.open(dir, { maxBytes: 1024 * 1024, logger: pino({ level: 'silent' }) });
    sent = [];
  });
  afterEach(() => {
    publisher?.stop();
    publisher = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  describe('publish', () => {
    it('sends a batch as soon as it holds maxResults', async () => {
      const p = make({ maxResults: 3, maxDelayMs: 60_000 });
      p.connected();
      p.publish(result());
      p.publish(result());
      expect(sent, 'not before the batch is full').to.deep.equal([]);
      p.publish(result());
      await settled();
      expect(sent).to.have.length(1);
      expect(sent[0]!.count).to.equal(3);
    });

    it('sends a partial batch after maxDelayMs', async () => {
      const p = make({ maxResults: 100, maxDelayMs: 30 });
      p.connected();
      const r = result();
      p.publish(r);
      expect(sent).to.deep.equal([]);
      await poll(() => sent.length === 1, { what: 'the timed flush' });
      expect(resultsOf(sent[0]!).map((x) => x.id)).to.deep.equal([r.id]);
    });

    it('holds a steady result for maxDelayMs, and sends it within urgentDelayMs with an urgent one', async () => {
      const p = make({ maxResults: 100, maxDelayMs: 60_000, urgentDelayMs: 20 });
      p.connected();
      const steady = result();
      p.publish(steady);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await settled();
      expect(sent, 'a steady result waits for others').to.deep.equal([]);
      const urgent = result();
      p.publish(urgent, true);
      await poll(() => sent.length === 1, { what: 'the urgent flush' });
      expect(resultsOf(sent[0]!).map((x) => x.id)).to.deep.equal([steady.id, urgent.id]);
    });

    it('never waits for an urgent result longer than for a steady one', async () => {
      const p = make({ maxResults: 100, maxDelayMs: 30, urgentDelayMs: 60_000 });
      p.connected();
      p.publish(result(), true);
      await poll(() => sent.length === 1, { what: 'the flush after maxDelayMs' });
    });

    it('keeps batches while offline and sends them in order once connected', async () => {
      const p = make({ maxResults: 1 });
      p.publish(result());
      p.publish(result());
      await settled();
      expect(sent).to.deep.equal([]);
      p.connected();
      expect(sent.map((b) => b.seq)).to.deep.equal([1, 2]);
    });

    it('keeps at most maxInFlight batches awaiting acknowledgement', async () => {
      const p = make({ maxResults: 1, maxInFlight: 2 });
      p.connected();
      for (let i = 0; i < 5; i++) p.publish(result());
      await settled();
      expect(sent.map((b) => b.seq)).to.deep.equal([1, 2]);
      p.acknowledged(sent[0]!.batchId);
      await settled();
      expect(sent.map((b) => b.seq)).to.deep.equal([1, 2, 3]);
    });

    it('only keeps a result on disk after stop()', () => {
      const p = make({ maxResults: 1 });
      p.connected();
      p.stop();
      p.publish(result());
      expect(sent).to.deep.equal([]);
      expect(spool.stats()).to.include({ batches: 0, results: 1 });
    });
  });

  describe('connected', () => {
    it('sends every unacknowledged batch again, in order, after a reconnect, and forgets acknowledged ones', async () => {
      const p = make({ maxResults: 1 });
      p.connected();
      for (let i = 0; i < 3; i++) p.publish(result());
      await settled();
      p.acknowledged(sent[1]!.batchId);
      p.disconnected();
      const before = sent.splice(0);
      p.connected();
      expect(sent.map((b) => b.batchId)).to.deep.equal([before[0]!.batchId, before[2]!.batchId]);
      expect(spool.stats().batches).to.equal(2);
    });

    it('stops sending when the stream refuses a batch, and goes on once connected again', async () => {
      let open = true;
      const p = make({ maxResults: 1, send: (b) => open && (sent.push(b), true) });
      p.connected();
      p.publish(result());
      await settled();
      open = false;
      p.publish(result());
      await settled();
      expect(sent).to.have.length(1);
      open = true;
      p.connected();
      expect(sent.map((b) => b.seq)).to.deep.equal([1, 1, 2]);
    });
  });

  describe('acknowledged', () => {
    it('deletes the batch from the spool', async () => {
      const p = make({ maxResults: 1 });
      p.connected();
      p.publish(result());
      await settled();
      p.acknowledged(sent[0]!.batchId);
      expect(spool.stats()).to.include({ batches: 0, results: 0 });
    });

    it('sends a batch again when its acknowledgement does not come in time', async () => {
      const p = make({ maxResults: 1, ackTimeoutMs: 40 });
      p.connected();
      p.publish(result());
      await poll(() => sent.length === 2, { what: 'the re-send' });
      expect(sent[1]!.batchId).to.equal(sent[0]!.batchId);
    });
  });

  describe('drain', () => {
    it('seals what is pending and resolves true once everything is acknowledged', async () => {
      const p = make({ maxResults: 100, maxDelayMs: 60_000 });
      p.connected();
      p.publish(result());
      const draining = p.drain(10_000);
      await settled();
      expect(sent).to.have.length(1);
      p.acknowledged(sent[0]!.batchId);
      expect(await draining).to.equal(true);
    });

    it('resolves false after its bound when acknowledgements do not come', async () => {
      const p = make({ maxResults: 1 });
      p.connected();
      p.publish(result());
      expect(await p.drain(30)).to.equal(false);
      expect(spool.stats().batches).to.equal(1);
    });
  });
});
