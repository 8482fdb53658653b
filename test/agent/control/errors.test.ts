import { status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { classifyStreamError, describeStreamError } from '../../../agent/src/control/errors.js';

describe('stream errors', () => {
  describe('classifyStreamError', () => {
    it('calls a refused token, permission or hello fatal', () => {
      for (const code of [status.UNAUTHENTICATED, status.PERMISSION_DENIED, status.INVALID_ARGUMENT]) {
        expect(classifyStreamError({ code, details: 'no' }), status[code]).to.equal('fatal');
      }
    });

    it('calls everything else transient: unavailable, a clean end, a cancel, network errors', () => {
      for (const code of [status.OK, status.CANCELLED, status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.INTERNAL, status.RESOURCE_EXHAUSTED]) {
        expect(classifyStreamError({ code }), status[code]).to.equal('transient');
      }
      expect(classifyStreamError(new Error('read ECONNRESET'))).to.equal('transient');
      expect(classifyStreamError(undefined)).to.equal('transient');
    });
  });

  describe('describeStreamError', () => {
    it('names the status and its details', () => {
      expect(describeStreamError({ code: status.UNAUTHENTICATED, details: 'invalid agent token' })).to.equal('UNAUTHENTICATED: invalid agent token');
      expect(describeStreamError(new Error('socket hang up'))).to.equal('socket hang up');
    });
  });
});
