import { expect } from 'chai';
import { HttpParseError, ResponseParser } from '../../../agent/src/probers/http-response-parser.js';

const parser = (options: { headRequest?: boolean; maxBodyBytes?: number; maxHeadBytes?: number } = {}) =>
  new ResponseParser({ headRequest: options.headRequest ?? false, maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024, maxHeadBytes: options.maxHeadBytes });

/** Feeds `text` in pieces of `size` bytes; returns whether the last write completed the response. */
function feed(p: ResponseParser, text: string, size = Infinity): boolean {
  const bytes = Buffer.from(text, 'latin1');
  let complete = false;
  for (let i = 0; i < bytes.length; i += Math.min(size, bytes.length)) complete = p.write(bytes.subarray(i, i + size));
  return complete;
}

const parseError = (run: () => unknown, code: string) => {
  expect(run).to.throw(HttpParseError).with.property('code', code);
};

describe('http response parser', () => {
  const plain = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\nX-Trace: a\r\nx-trace: b\r\n\r\nhello world';

  it('reads a Content-Length response in one piece or byte by byte alike', () => {
    for (const size of [Infinity, 1, 7]) {
      const p = parser();
      expect(feed(p, plain, size), `pieces of ${size}`).to.equal(true);
      expect(p.head).to.deep.equal({ status: 200, headers: { 'content-type': 'text/plain', 'content-length': '11', 'x-trace': 'a, b' } });
      expect(p.body().toString()).to.equal('hello world');
      expect(p.truncated).to.equal(false);
    }
  });

  it('is not complete before the last byte a Content-Length announces', () => {
    const p = parser();
    expect(feed(p, plain.slice(0, -1))).to.equal(false);
    expect(p.write(Buffer.from('d'))).to.equal(true);
  });

  it('decodes a chunked body with extensions and trailers, complete only at its last line', () => {
    const response = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nExpires: never\r\n\r\n';
    for (const size of [Infinity, 1, 3, 10]) {
      const p = parser();
      expect(feed(p, response.slice(0, -2), size), `pieces of ${size}`).to.equal(false);
      expect(p.write(Buffer.from('\r\n'))).to.equal(true);
      expect(p.body().toString()).to.equal('hello world');
    }
  });

  it('reads a body without length up to the close', () => {
    const p = parser();
    expect(feed(p, 'HTTP/1.0 200 OK\r\n\r\npart one, ')).to.equal(false);
    expect(feed(p, 'part two')).to.equal(false);
    expect(p.end()).to.equal(true);
    expect(p.body().toString()).to.equal('part one, part two');
  });

  it('expects no body after HEAD, 204 and 304, whatever Content-Length says', () => {
    expect(feed(parser({ headRequest: true }), 'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n')).to.equal(true);
    expect(feed(parser(), 'HTTP/1.1 204 No Content\r\n\r\n')).to.equal(true);
    expect(feed(parser(), 'HTTP/1.1 304 Not Modified\r\nContent-Length: 500\r\n\r\n')).to.equal(true);
  });

  it('skips interim 100 and 103 responses for the final one', () => {
    const p = parser();
    expect(feed(p, 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok')).to.equal(true);
    expect(p.head?.status).to.equal(201);
    expect(p.head?.headers).to.not.have.property('link');
    expect(p.body().toString()).to.equal('ok');
  });

  it('stops at maxBodyBytes: complete, truncated, and no byte more kept', () => {
    const p = parser({ maxBodyBytes: 4 });
    expect(feed(p, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n')).to.equal(true);
    expect(p.truncated).to.equal(true);
    expect(p.body().toString()).to.equal('abcd');
  });

  it('takes bare LF line ends and folded lines; keeps the first Location of two', () => {
    const p = parser();
    expect(feed(p, 'HTTP/1.1 302 Found\nLocation: /first\nLocation: /second\nX-Long: one\n  two\nContent-Length: 0\n\n')).to.equal(true);
    expect(p.head).to.deep.equal({ status: 302, headers: { location: '/first', 'x-long': 'one two', 'content-length': '0' } });
  });

  it('refuses bytes that are not an HTTP response as soon as they arrive', () => {
    parseError(() => feed(parser(), 'SSH-2.0-OpenSSH_9.2p1\r\n'), 'HPE_INVALID_CONSTANT');
    parseError(() => feed(parser(), 'HTTP/2 200\r\n\r\n'), 'HPE_INVALID_CONSTANT');
    parseError(() => feed(parser(), 'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n'), 'HPE_INVALID_HEADER_TOKEN');
  });

  it('refuses a Content-Length it cannot trust and a chunk size it cannot read', () => {
    parseError(() => feed(parser(), 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n'), 'HPE_UNEXPECTED_CONTENT_LENGTH');
    parseError(() => feed(parser(), 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd'), 'HPE_UNEXPECTED_CONTENT_LENGTH');
    parseError(() => feed(parser(), 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'), 'HPE_INVALID_CHUNK_SIZE');
    parseError(() => feed(parser(), 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n'), 'HPE_INVALID_CHUNK_SIZE');
  });

  it('refuses a head larger than its limit, complete or not', () => {
    const big = `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(200)}\r\n`;
    parseError(() => feed(parser({ maxHeadBytes: 100 }), big), 'HPE_HEADER_OVERFLOW');
    parseError(() => feed(parser({ maxHeadBytes: 100 }), `${big}\r\n`), 'HPE_HEADER_OVERFLOW');
  });

  it('tells a connection closed before any byte from one closed mid-response', () => {
    expect(() => parser().end()).to.throw('connection closed without a response');
    const p = parser();
    feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
    expect(() => p.end()).to.throw('connection closed before the response was complete');
    const chunked = parser();
    feed(chunked, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
    expect(() => chunked.end()).to.throw('connection closed before the response was complete');
  });
});
