import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { DiskSpool, type SpooledResult } from '../../../agent/src/spool/disk-spool.js';

const logger = pino({ level: 'silent' });
const result = (): SpooledResult => ({ id: randomUUID(), serviceId: randomUUID(), assignmentVersion: 1, ok: true, responseTimeMs: 5, message: 'ok', checkedAtMs: Date.now(), details: {}, adHoc: false });

describe('disk spool', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const open = (maxBytes = 1024 * 1024) => DiskSpool.open(dir, { maxBytes, logger });

  it('keeps sealed and unsealed results across a reopen, until acknowledged', () => {
    const first = open();
    const a = result();
    const b = result();
    first.append(a);
    const batch = first.seal()!;
    first.append(b);
    const reopened = open();
    const held = reopened.sealed().flatMap((x) => x.results.map((r) => r.id));
    expect(held).to.deep.equal([a.id, b.id]);
    expect(reopened.acknowledge(batch.batchId)).to.equal(true);
    expect(open().sealed().flatMap((x) => x.results.map((r) => r.id))).to.deep.equal([b.id]);
  });

  it('skips a line torn by a crash instead of failing', () => {
    const spool = open();
    const a = result();
    spool.append(a);
    appendFileSync(path.join(dir, 'current.jsonl'), '{"id":"half-writ');
    const reopened = open();
    expect(reopened.stats().results).to.equal(1);
    expect(reopened.sealed()[0]?.results[0]?.id).to.equal(a.id);
  });

  it('deletes the batch file on acknowledgement', () => {
    const spool = open();
    spool.append(result());
    const batch = spool.seal()!;
    spool.acknowledge(batch.batchId);
    expect(readdirSync(dir).filter((f) => f.startsWith('batch-'))).to.deep.equal([]);
    expect(spool.stats()).to.include({ batches: 0, results: 0 });
  });

  it('evicts the oldest batches when over its size, and counts what it dropped', () => {
    const spool = open(2_000);
    const batches = [];
    for (let i = 0; i < 10; i++) {
      for (let j = 0; j < 3; j++) spool.append(result());
      batches.push(spool.seal()!);
    }
    const stats = spool.stats();
    expect(stats.bytes).to.be.at.most(2_000);
    expect(stats.evictedResults).to.be.greaterThan(0);
    expect(stats.evictedResults % 3).to.equal(0);
    expect(spool.sealed().at(-1)?.batchId, 'the newest batch is kept').to.equal(batches.at(-1)?.batchId);
  });
});
