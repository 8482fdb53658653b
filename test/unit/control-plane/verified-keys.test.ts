import { expect } from 'chai';
import type { ApiKey } from '../../../control-plane/src/features/api-keys/api-keys.repository.js';
import { createVerifiedKeys } from '../../../control-plane/src/features/api-keys/verified-keys.js';

describe('verified API keys', () => {
  const keyWithId = (id: string): ApiKey => ({ id, organizationId: 'o', createdBy: 'u', name: id, role: 'viewer', prefix: 'p', scopes: null, expiresAt: null, createdAt: new Date(0), lastUsedAt: null });

  it('remembers a key for a minute, not longer', () => {
    let now = 0;
    const verified = createVerifiedKeys(10, () => now);
    verified.remember('op_raw', keyWithId('k'));
    now = 59_999;
    expect(verified.get('op_raw')?.id).to.equal('k');
    now = 60_000;
    expect(verified.get('op_raw')).to.equal(undefined);
  });

  it('makes room by forgetting the oldest key when full', () => {
    const verified = createVerifiedKeys(2);
    verified.remember('op_a', keyWithId('a'));
    verified.remember('op_b', keyWithId('b'));
    verified.remember('op_c', keyWithId('c'));
    expect([verified.get('op_a'), verified.get('op_b')?.id, verified.get('op_c')?.id]).to.deep.equal([undefined, 'b', 'c']);
  });

  it('forgets every raw form of a revoked key', () => {
    const verified = createVerifiedKeys();
    verified.remember('op_one', keyWithId('k'));
    verified.remember('op_two', keyWithId('k'));
    verified.remember('op_other', keyWithId('other'));
    verified.forget('k');
    expect([verified.get('op_one'), verified.get('op_two'), verified.get('op_other')?.id]).to.deep.equal([undefined, undefined, 'other']);
  });
});
