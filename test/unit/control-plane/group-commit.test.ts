import { expect } from 'chai';
import { createGroupCommit, type GroupCommitOptions } from '../../../control-plane/src/features/checks/group-commit.js';

/** A commit that records each group it is given and holds it until released. */
function heldCommits(fail: (items: string[]) => boolean = () => false) {
  const groups: string[][] = [];
  const releases: (() => void)[] = [];
  let running = 0;
  let mostAtOnce = 0;
  async function commit(items: string[]): Promise<string[]> {
    groups.push(items);
    running += 1;
    mostAtOnce = Math.max(mostAtOnce, running);
    await new Promise<void>((resolve) => releases.push(resolve));
    running -= 1;
    if (fail(items)) throw new Error(`cannot store ${items.join(',')}`);
    return items.map((item) => `stored ${item}`);
  }
  return {
    commit,
    groups,
    mostAtOnce: () => mostAtOnce,
    /** Lets the oldest held commit finish, then lets the queue move. */
    async releaseOne(): Promise<void> {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** One transaction at a time, items of size 1 and of one key, no filling, unless told otherwise. */
function options(commit: (items: string[]) => Promise<string[]>, overrides: Partial<GroupCommitOptions<string, string>> = {}): GroupCommitOptions<string, string> {
  return { concurrency: 1, maxGroupSize: 100, fillSize: 0, size: () => 1, key: () => 'one agent', commit, worthRetryingAlone: () => true, ...overrides };
}

describe('group commit', () => {
  it('stores a batch at once when a place is free, and the batches that waited together in the next transaction', async () => {
    const commits = heldCommits();
    const groups = createGroupCommit(options(commits.commit));
    const first = groups.submit('a');
    const waiting = ['b', 'c', 'd'].map((item) => groups.submit(item));
    await settle();
    expect(commits.groups).to.deep.equal([['a']]);
    await commits.releaseOne();
    expect(await first).to.equal('stored a');
    expect(commits.groups).to.deep.equal([['a'], ['b', 'c', 'd']]);
    await commits.releaseOne();
    expect(await Promise.all(waiting)).to.deep.equal(['stored b', 'stored c', 'stored d']);
  });

  it('runs no more transactions at once than allowed', async () => {
    const commits = heldCommits();
    const groups = createGroupCommit(options(commits.commit, { concurrency: 2, maxGroupSize: 1 }));
    const all = ['a', 'b', 'c', 'd', 'e'].map((item) => groups.submit(item));
    await settle();
    expect(commits.groups).to.have.length(2);
    for (let i = 0; i < 5; i++) await commits.releaseOne();
    expect(await Promise.all(all)).to.have.length(5);
    expect(commits.mostAtOnce()).to.equal(2);
    expect(commits.groups).to.deep.equal([['a'], ['b'], ['c'], ['d'], ['e']]);
  });

  it('takes the waiting batches that fit within its size, oldest first, and always at least one', async () => {
    const commits = heldCommits();
    const groups = createGroupCommit(options(commits.commit, { maxGroupSize: 5, size: (s) => s.length }));
    const all = ['x', 'aaa', 'bb', 'c', 'dddddddd', 'e'].map((item) => groups.submit(item));
    await settle();
    for (let i = 0; i < 4; i++) await commits.releaseOne();
    await Promise.all(all);
    expect(commits.groups).to.deep.equal([['x'], ['aaa', 'bb'], ['c', 'e'], ['dddddddd']]);
  });

  it('stores each batch of a failed group alone, so only the one that cannot be stored fails', async () => {
    const commits = heldCommits((items) => items.includes('bad'));
    const groups = createGroupCommit(options(commits.commit));
    const first = groups.submit('a');
    const outcomes = ['b', 'bad', 'c'].map((item) =>
      groups.submit(item).then(
        (value) => value,
        (err: Error) => err.message,
      ),
    );
    await settle();
    for (let i = 0; i < 5; i++) await commits.releaseOne();
    expect(await first).to.equal('stored a');
    expect(await Promise.all(outcomes)).to.deep.equal(['stored b', 'cannot store bad', 'stored c']);
    expect(commits.groups).to.deep.equal([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('fails the whole group at once when trying its items alone would fail as well (the database is down)', async () => {
    const commits = heldCommits((items) => items.length > 0);
    const groups = createGroupCommit(options(commits.commit, { worthRetryingAlone: () => false }));
    const first = groups.submit('a').catch((err: Error) => err.message);
    const waiting = ['b', 'c'].map((item) => groups.submit(item).catch((err: Error) => err.message));
    await settle();
    for (let i = 0; i < 2; i++) await commits.releaseOne();
    expect(await first).to.equal('cannot store a');
    expect(await Promise.all(waiting)).to.deep.equal(['cannot store b,c', 'cannot store b,c']);
    expect(commits.groups).to.deep.equal([['a'], ['b', 'c']]);
    expect(groups.waiting()).to.equal(0);
  });

  it("groups only batches of the oldest waiting batch's key, and leaves the others, in order, for the next transactions", async () => {
    const commits = heldCommits();
    const groups = createGroupCommit(options(commits.commit, { key: (s) => s[0]! }));
    const all = ['a1', 'b1', 'a2', 'c1', 'b2', 'a3'].map((item) => groups.submit(item));
    await settle();
    expect(groups.waiting()).to.equal(5);
    for (let i = 0; i < 4; i++) await commits.releaseOne();
    await Promise.all(all);
    expect(commits.groups).to.deep.equal([['a1'], ['b1', 'b2'], ['a2', 'a3'], ['c1']]);
  });

  it("fills a group that its key's batches leave small with other keys' batches, oldest first, up to the fill size", async () => {
    const commits = heldCommits();
    const groups = createGroupCommit(options(commits.commit, { key: (s) => s[0]!, fillSize: 4 }));
    const all = ['z1', 'a1', 'b1', 'a2', 'c1', 'b2', 'c2'].map((item) => groups.submit(item));
    await settle();
    for (let i = 0; i < 3; i++) await commits.releaseOne();
    await Promise.all(all);
    expect(commits.groups).to.deep.equal([['z1'], ['a1', 'a2', 'b1', 'c1'], ['b2', 'c2']]);
  });
});
