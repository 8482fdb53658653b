import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { JwtRejectedError, verifyHs256 } from '../../../control-plane/src/features/auth/hs256-jwt.js';

describe('hs256-jwt', () => {
  const key = new TextEncoder().encode('a-test-secret-a-test-secret-a-test-secret');
  const now = 1_800_000_000;
  const claims = { user_id: 'u', tenant_id: 't', email: 'e@example.com' };
  const signed = (header: Record<string, unknown>, payload: Record<string, unknown>, secret: Uint8Array = key) => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const input = `${enc(header)}.${enc(payload)}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  };
  const failureOf = (token: string) => {
    try {
      verifyHs256(token, key, now);
    } catch (err) {
      if (err instanceof JwtRejectedError) return err.failure;
      throw err;
    }
    return 'accepted';
  };

  describe('verifyHs256', () => {
    it('returns the claims of a token jose signed with the key', async () => {
      const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(now - 10).setExpirationTime(now + 10).sign(key);
      expect(verifyHs256(token, key, now)).to.deep.equal({ ...claims, iat: now - 10, exp: now + 10 });
    });

    it('calls a token expired from its exp second on', () => {
      expect(failureOf(signed({ alg: 'HS256' }, { ...claims, iat: now - 10, exp: now + 1 }))).to.equal('accepted');
      expect(failureOf(signed({ alg: 'HS256' }, { ...claims, iat: now - 10, exp: now }))).to.equal('expired');
    });

    it('refuses another algorithm, a critical header, another key or a changed payload', () => {
      const payload = { ...claims, iat: now, exp: now + 60 };
      expect(failureOf(signed({ alg: 'HS512' }, payload))).to.equal('invalid');
      expect(failureOf(signed({ alg: 'HS256', crit: ['b64'], b64: false }, payload))).to.equal('invalid');
      expect(failureOf(signed({ alg: 'HS256' }, payload, new TextEncoder().encode('another-key')))).to.equal('invalid');
      const [h, , s] = signed({ alg: 'HS256' }, payload).split('.');
      const forged = Buffer.from(JSON.stringify({ ...payload, tenant_id: 'other' })).toString('base64url');
      expect(failureOf(`${h}.${forged}.${s}`)).to.equal('invalid');
    });

    it('refuses an unsigned token and malformed ones', () => {
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const payload = { ...claims, iat: now, exp: now + 60 };
      expect(failureOf(`${enc({ alg: 'none' })}.${enc(payload)}.`)).to.equal('invalid');
      for (const token of ['', 'a.b', 'not.a.jwt', `${signed({ alg: 'HS256' }, payload)}.x`, `${enc({ alg: 'HS256' })}.${enc(payload)}.a+b/c=`]) {
        expect(failureOf(token), token).to.equal('invalid');
      }
    });

    it('refuses a token without a numeric exp or iat, or not yet valid', () => {
      expect(failureOf(signed({ alg: 'HS256' }, { ...claims, iat: now }))).to.equal('invalid');
      expect(failureOf(signed({ alg: 'HS256' }, { ...claims, exp: now + 60 }))).to.equal('invalid');
      expect(failureOf(signed({ alg: 'HS256' }, { ...claims, iat: String(now), exp: now + 60 }))).to.equal('invalid');
      expect(failureOf(signed({ alg: 'HS256' }, { ...claims, iat: now, exp: now + 60, nbf: now + 30 }))).to.equal('invalid');
      expect(failureOf(signed({ alg: 'HS256' }, [1, 2] as unknown as Record<string, unknown>))).to.equal('invalid');
    });
  });
});
