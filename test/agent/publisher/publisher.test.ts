import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createPublisher, type Publisher } from '../../../agent/src/publisher/publisher.js';
import { DiskSpool, type SealedBatch } from '../../../agent/src/spool/disk-spool.js';
import { poll } from '../../support/poll.js';

const result = () => ({ id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 1, ok: true, responseTimeMs: 1, message: 'ok', checkedAtMs: Date.now(), details: {}, adHoc: false });

describe('publisher', () => {
  let dir: string;
  let spool: DiskSpool;
  let sent: SealedBatch[];
  let publisher: Publisher;
  const make = (options: Partial<Parameters<typeof createPublisher>[0]> = {}) => {
    publisher = createPublisher({ spool, send: (b) => (sent.push(b), true), ...options });
    return publisher;
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-publisher-'));
    spool = DiskSpool.open(dir, { maxBytes: 1024 * 1024, logger: pino({ level: 'silent' }) });
    sent = [];
  });
  afterEach(() => {
    publisher?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a batch as soon as it holds maxResults', () => {
    const p = make({ maxResults: 3, maxDelayMs: 60_000 });
    p.connected();
    for (let i = 0; i < 3; i++) p.publish(result());
    expect(sent).to.have.length(1);
    expect(sent[0]!.results).to.have.length(3);
  });

  it('sends a partial batch after maxDelayMs', async () => {
    const p = make({ maxResults: 100, maxDelayMs: 30 });
    p.connected();
    p.publish(result());
    await poll(() => sent.length === 1, { what: 'the timed flush' });
  });

  it('keeps batches while offline and sends them in order once connected', () => {
    const p = make({ maxResults: 1 });
    p.publish(result());
    p.publish(result());
    expect(sent).to.deep.equal([]);
    p.connected();
    expect(sent.map((b) => b.seq)).to.deep.equal([1, 2]);
  });

  it('sends every unacknowledged batch again after a reconnect, and forgets acknowledged ones', () => {
    const p = make({ maxResults: 1 });
    p.connected();
    p.publish(result());
    p.publish(result());
    p.acknowledged(sent[0]!.batchId);
    p.disconnected();
    sent.length = 0;
    p.connected();
    expect(sent).to.have.length(1);
    expect(spool.stats().batches).to.equal(1);
  });

  it('sends a batch again when its acknowledgement does not come in time', async () => {
    const p = make({ maxResults: 1, ackTimeoutMs: 40 });
    p.connected();
    p.publish(result());
    await poll(() => sent.length === 2, { what: 'the re-send' });
    expect(sent[1]!.batchId).to.equal(sent[0]!.batchId);
  });
});
