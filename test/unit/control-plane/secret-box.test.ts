import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { addKeyToFile, fileKeyring, keyringFromKeys, KeyringError, newDataKey, parseKeyring } from '../../../control-plane/src/crypto/keyring.js';
import { createSecretBox } from '../../../control-plane/src/crypto/secret-box.js';
import { sealedLikeV1 } from '../../support/legacy-seal.js';

describe('secret box', () => {
  const k1 = newDataKey();
  const box = createSecretBox(keyringFromKeys([k1]));

  it('seals to a value naming its key that hides the secret and opens back to it', () => {
    const sealed = box.seal('hunter2');
    expect(sealed).to.match(new RegExp(`^enc:v2:${k1.id}:`)).and.not.include('hunter2');
    expect(box.isSealed(sealed)).to.equal(true);
    expect(box.isStale(sealed)).to.equal(false);
    expect(box.open(sealed)).to.equal('hunter2');
  });

  it('seals the same secret differently each time', () => {
    expect(box.seal('same')).to.not.equal(box.seal('same'));
  });

  it('refuses a value sealed under an unknown key, tampered with, or relabelled with another key id', () => {
    expect(() => createSecretBox(keyringFromKeys([newDataKey()])).open(box.seal('x'))).to.throw(/no data key/);
    const sealed = box.seal('abc');
    expect(() => box.open(`${sealed.slice(0, -2)}AA`)).to.throw();
    const k2 = { id: 'other', key: k1.key };
    expect(() => createSecretBox(keyringFromKeys([k2, k1])).open(sealed.replace(k1.id, 'other'))).to.throw();
  });

  it('opens values of older keys and marks them stale once a new key seals', () => {
    const old = box.seal('kept');
    const rotated = createSecretBox(keyringFromKeys([newDataKey(), k1]));
    expect(rotated.open(old)).to.equal('kept');
    expect(rotated.isStale(old)).to.equal(true);
    expect(rotated.isStale(rotated.seal('new'))).to.equal(false);
  });

  it('opens values of the first format with the JWT secret they were sealed under, and calls them stale', () => {
    const legacy = sealedLikeV1('from-v1', 'jwt-secret-jwt-secret-jwt-secret-jwt');
    const withSecret = createSecretBox(keyringFromKeys([k1]), 'jwt-secret-jwt-secret-jwt-secret-jwt');
    expect(withSecret.open(legacy)).to.equal('from-v1');
    expect(withSecret.isStale(legacy)).to.equal(true);
    expect(() => createSecretBox(keyringFromKeys([k1]), 'another-secret-another-secret-another').open(legacy)).to.throw();
  });
});

describe('keyring', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('parses ID:KEY entries, the first sealing, and refuses bad ids, short keys and repeats', () => {
    const key = randomBytes(32).toString('base64');
    expect(parseKeyring([`new:${key}`, `old:${key}`]).map((k) => k.id)).to.deep.equal(['new', 'old']);
    for (const bad of [[], [`has space:${key}`], ['short:AAAA'], [`a:${key}`, `a:${key}`], [key]]) {
      expect(() => parseKeyring(bad), JSON.stringify(bad)).to.throw(KeyringError);
    }
  });

  it('makes a key file readable by its owner only on first use, and reads the same key back', () => {
    const first = fileKeyring(dir).current();
    expect(statSync(path.join(dir, 'data-keys')).mode & 0o777).to.equal(0o600);
    expect(fileKeyring(dir).current()).to.deep.equal(first);
  });

  it('finds a key another process added to the file when asked to reload', () => {
    const running = fileKeyring(dir);
    const added = newDataKey();
    addKeyToFile(dir, added);
    expect(running.find(added.id)).to.equal(undefined);
    const box = createSecretBox(running);
    const sealedByOther = createSecretBox(keyringFromKeys([added])).seal('rotated');
    expect(box.open(sealedByOther)).to.equal('rotated');
    expect(running.current().id).to.equal(added.id);
    expect(readFileSync(path.join(dir, 'data-keys'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))).to.have.length(2);
  });
});
