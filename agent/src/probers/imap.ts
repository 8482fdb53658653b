// IMAP: reads the banner, then LOGOUT. Passes when the banner starts with "* OK". The banner
// line is the `banner` source.
import { converse } from './conversation.js';
import type { Prober } from './prober.js';

export function imapProber(): Prober {
  return {
    family: 'IMAP',
    prepare: (target) => (signal) =>
      converse(target, signal, async (s, observed) => {
        const banner = await s.readLine();
        const bannerMs = s.elapsed();
        observed.banner = banner;
        s.write('a1 LOGOUT\r\n');
        const ok = banner.startsWith('* OK');
        return { ok, message: ok ? `IMAP ${banner.slice(0, 120)}` : `not an IMAP banner: "${banner.slice(0, 80)}"`, details: { banner_ms: bannerMs } };
      }),
  };
}
