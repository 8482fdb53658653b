import { expect } from 'chai';
import { decodeEscapes, EscapeError, isEscapedText } from '../../../shared/src/escapes.js';

describe('escapes', () => {
  describe('decodeEscapes', () => {
    it('decodes \\r, \\n, \\t and \\\\', () => {
      expect(decodeEscapes('PING\\r\\n').toString('latin1')).to.equal('PING\r\n');
      expect(decodeEscapes('a\\tb').toString('latin1')).to.equal('a\tb');
      expect(decodeEscapes('C:\\\\temp').toString('latin1')).to.equal('C:\\temp');
    });

    it('decodes \\xHH to the byte itself, not to a UTF-8 character', () => {
      expect([...decodeEscapes('\\x00\\xff\\x7F')]).to.deep.equal([0x00, 0xff, 0x7f]);
    });

    it('writes the other characters in UTF-8 and leaves text without escapes as it is', () => {
      expect(decodeEscapes('héllo ✓').toString('utf8')).to.equal('héllo ✓');
      expect(decodeEscapes('stats')).to.deep.equal(Buffer.from('stats'));
    });

    it('reads escapes left to right, so an escaped backslash never starts another escape', () => {
      expect(decodeEscapes('\\\\x41').toString('latin1')).to.equal('\\x41');
      expect(decodeEscapes('\\\\\\n').toString('latin1')).to.equal('\\\n');
    });

    it('throws an EscapeError naming the first bad escape and where it is', () => {
      for (const bad of ['\\a', 'ok\\x4', '\\xZZ', 'trailing\\', '\\0', '\\\\\\q']) {
        expect(() => decodeEscapes(bad), bad).to.throw(EscapeError);
      }
      expect(() => decodeEscapes('ab\\q')).to.throw(EscapeError, '"\\q" at character 3 is not an escape');
    });
  });

  describe('isEscapedText', () => {
    it('tells text the decoder takes from text it refuses', () => {
      expect(isEscapedText('GET / HTTP/1.0\\r\\n\\r\\n')).to.equal(true);
      expect(isEscapedText('\\u0041')).to.equal(false);
    });
  });
});
