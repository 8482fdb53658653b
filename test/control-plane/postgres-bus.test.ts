// The cluster bus on a real PostgreSQL: a message published with confirmation is answered only
// once every named peer has handled it, and a peer that cannot confirm is named, in bounded time.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import type { ClusterBus } from '../../control-plane/src/cluster/cluster-bus.js';
import { createPostgresBus } from '../../control-plane/src/cluster/postgres-bus.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase, testDatabase } from '../support/test-database.js';

const CONFIRM_TIMEOUT_MS = 500;

describe('cluster bus on PostgreSQL', function () {
  this.timeout(20_000);
  const buses: ClusterBus[] = [];
  before(async function () {
    await requireServerDatabase(this, 'a session per bus to listen on');
  });

  const startBus = async () => {
    const { url } = await testDatabase();
    const bus = createPostgresBus({ url, query: (text, params) => sql(text, params, url), logger: createLogger('silent'), confirmTimeoutMs: CONFIRM_TIMEOUT_MS });
    await bus.start();
    buses.push(bus);
    return bus;
  };
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.stop();
  });

  it('answers a confirmed publish only after every peer has handled the message', async () => {
    const [publisher, slow, quick] = [await startBus(), await startBus(), await startBus()];
    const handled: string[] = [];
    slow.on('key', async ({ id }) => {
      await delay(150);
      handled.push(`slow:${id}`);
    });
    quick.on('key', ({ id }) => void handled.push(`quick:${id}`));

    const late = await publisher.publishConfirmed({ k: 'key', id: 'k1' }, [slow.replicaId, quick.replicaId]);

    expect(late).to.deep.equal([]);
    expect(handled).to.have.members(['slow:k1', 'quick:k1']);
  });

  it('names, after a bounded wait, a peer that is not listening and one whose handler failed', async () => {
    const [publisher, failing, healthy] = [await startBus(), await startBus(), await startBus()];
    failing.on('rules', () => {
      throw new Error('cache unavailable');
    });
    let healthyHandled = false;
    healthy.on('rules', () => void (healthyHandled = true));
    const gone = randomUUID();

    const late = await publisher.publishConfirmed({ k: 'rules', org: 'o1' }, [gone, failing.replicaId, healthy.replicaId]);

    expect(late).to.have.members([gone, failing.replicaId]);
    expect(healthyHandled).to.equal(true);
  });

  it('publishes to whoever listens when no peer is named, without waiting', async () => {
    const [publisher, listener] = [await startBus(), await startBus()];
    const seen: string[] = [];
    listener.on('agent', ({ id }) => void seen.push(id));

    expect(await publisher.publishConfirmed({ k: 'agent', id: 'a1' }, [])).to.deep.equal([]);
    await poll(() => seen.includes('a1'), { what: 'the message on the listening bus', timeoutMs: 5_000 });
  });
});
