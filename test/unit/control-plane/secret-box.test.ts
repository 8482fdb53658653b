import { expect } from 'chai';
import { createSecretBox } from '../../../control-plane/src/crypto/secret-box.js';

describe('secret box', () => {
  const box = createSecretBox('server-secret-server-secret-server-secret');

  it('seals to a tagged value that hides the secret and opens back to it', () => {
    const sealed = box.seal('hunter2');
    expect(sealed).to.match(/^enc:v1:/).and.not.include('hunter2');
    expect(box.isSealed(sealed)).to.equal(true);
    expect(box.open(sealed)).to.equal('hunter2');
  });

  it('seals the same secret differently each time', () => {
    expect(box.seal('same')).to.not.equal(box.seal('same'));
  });

  it('refuses a value sealed under another server secret or tampered with', () => {
    const other = createSecretBox('another-secret-another-secret-another');
    expect(() => other.open(box.seal('x'))).to.throw();
    const sealed = box.seal('abc');
    expect(() => box.open(`${sealed.slice(0, -2)}AA`)).to.throw();
  });
});
