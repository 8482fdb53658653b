import { expect } from 'chai';
import { withoutBrackets } from '../../../shared/src/endpoints.js';

describe('withoutBrackets', () => {
  it('takes the brackets off an IPv6 address and leaves every other host as it is', () => {
    expect(withoutBrackets('[::1]')).to.equal('::1');
    expect(withoutBrackets('[fe80::1%eth0]')).to.equal('fe80::1%eth0');
    for (const host of ['::1', '127.0.0.1', 'db.internal', '[', ']', '[::1', '::1]', '']) expect(withoutBrackets(host), host).to.equal(host);
  });
});
