import { expect } from 'chai';
import { proxyFor } from '../../../agent/src/control/proxy-tunnel.js';
import { FrameError, FrameReader, frameMessage, GrpcCode, statusFromHttp, statusInHeaders } from '../../../agent/src/grpc/wire.js';

describe('gRPC wire', () => {
  describe('FrameReader', () => {
    const read = (chunks: Buffer[], maxBytes = 1024) => {
      const messages: string[] = [];
      const reader = new FrameReader((m) => messages.push(m.toString()), maxBytes);
      for (const chunk of chunks) reader.push(chunk);
      return messages;
    };
    const frames = Buffer.concat(['one', '', 'three'].map((s) => frameMessage(Buffer.from(s))));

    it('reads several messages from one chunk, an empty one included', () => {
      expect(read([frames])).to.deep.equal(['one', '', 'three']);
    });

    it('reads messages cut at every byte', () => {
      expect(read([...frames].map((b) => Buffer.from([b])))).to.deep.equal(['one', '', 'three']);
    });

    it('reads messages cut across chunks at every point', () => {
      for (let cut = 1; cut < frames.length; cut++) {
        expect(read([frames.subarray(0, cut), frames.subarray(cut)]), `cut at ${cut}`).to.deep.equal(['one', '', 'three']);
      }
    });

    it('refuses a message over the limit before buffering it', () => {
      const header = frameMessage(Buffer.alloc(2000)).subarray(0, 5);
      expect(() => read([header])).to.throw(FrameError, 'a message of 2000 bytes is over the limit of 1024').with.property('code', GrpcCode.RESOURCE_EXHAUSTED);
    });

    it('refuses a compressed message, which it never asked for', () => {
      const frame = frameMessage(Buffer.from('zz'));
      frame[0] = 1;
      expect(() => read([frame])).to.throw(FrameError).with.property('code', GrpcCode.INTERNAL);
    });
  });

  describe('statuses', () => {
    it('reads grpc-status and a percent-encoded grpc-message', () => {
      expect(statusInHeaders({ 'grpc-status': '16', 'grpc-message': 'bad%20token%3A%20%C3%BC' })).to.deep.equal({ code: 16, details: 'bad token: ü' });
      expect(statusInHeaders({ 'grpc-status': '14', 'grpc-message': '100%' })).to.deep.equal({ code: 14, details: '100%' });
      expect(statusInHeaders({ 'content-type': 'application/grpc' })).to.equal(undefined);
    });

    it('maps HTTP statuses as the gRPC spec does', () => {
      expect([400, 401, 403, 404, 429, 502, 503, 504, 500].map((s) => statusFromHttp(s).code)).to.deep.equal([
        GrpcCode.INTERNAL, GrpcCode.UNAUTHENTICATED, GrpcCode.PERMISSION_DENIED, GrpcCode.UNIMPLEMENTED,
        GrpcCode.UNAVAILABLE, GrpcCode.UNAVAILABLE, GrpcCode.UNAVAILABLE, GrpcCode.UNAVAILABLE, GrpcCode.UNKNOWN,
      ]);
    });
  });

  describe('proxyFor', () => {
    const url = 'http://proxy.lan:3128';

    it('uses the proxy unless NO_PROXY names the host', () => {
      expect(proxyFor('cp.example.com', { url })?.host).to.equal('proxy.lan:3128');
      expect(proxyFor('cp.example.com', { url, noProxy: 'other.com' })?.host).to.equal('proxy.lan:3128');
      expect(proxyFor('cp.example.com', { url, noProxy: 'other.com, cp.example.com' })).to.equal(undefined);
    });

    it('bypasses subdomains of a named domain, with or without a leading dot, but not look-alikes', () => {
      for (const noProxy of ['example.com', '.example.com', '*.example.com', 'EXAMPLE.com:9090']) {
        expect(proxyFor('cp.example.com', { url, noProxy }), noProxy).to.equal(undefined);
      }
      expect(proxyFor('cp.badexample.com', { url, noProxy: 'example.com' })).to.not.equal(undefined);
    });

    it('bypasses everything for *, and matches addresses exactly, IPv6 in brackets too', () => {
      expect(proxyFor('10.0.0.5', { url, noProxy: '*' })).to.equal(undefined);
      expect(proxyFor('10.0.0.5', { url, noProxy: '10.0.0.5' })).to.equal(undefined);
      expect(proxyFor('10.0.0.50', { url, noProxy: '10.0.0.5' })).to.not.equal(undefined);
      expect(proxyFor('::1', { url, noProxy: '[::1]:9090' })).to.equal(undefined);
    });
  });
});
